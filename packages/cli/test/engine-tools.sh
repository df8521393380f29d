# An engine's tool runner, for the identity tests: started as `exec -a <engine> bash this DIR MODE`,
# it is a long-lived process named as the engine, and each line written to DIR/requests runs as
# one tool call, a child of it, the way the engine runs its shell tool: `bash -c` (pi's bash tool,
# Claude Code's Bash tool), or in Codex's Linux sandbox (MODE sandbox: pid 1 of a pid namespace of
# its own named codex-linux-sandbox, the command its child). A line `mcp:…` runs outside the
# sandbox, as a child of the engine: what Codex's MCP server (its own child) does for it. Call N
# writes its output to DIR/N.out, then its exit code to DIR/N.rc.
dir=$1
mode=$2
n=0
exec 3<>"$dir/requests" </dev/null
: >"$dir/ready"
while IFS= read -r line <&3; do
  case "$mode:$line" in
  *:mcp:*) bash -c "${line#mcp:}" ;;
  sandbox:*)
    TOOL="$line" unshare -rpf --mount-proc \
      bash -c 'exec -a codex-linux-sandbox bash -c "bash -c \"\$TOOL\"; exit \$?"'
    ;;
  *) bash -c "$line" ;;
  esac >"$dir/$n.out" 2>&1
  echo $? >"$dir/$n.tmp"
  mv "$dir/$n.tmp" "$dir/$n.rc"
  n=$((n + 1))
done
