// `muster hook claude <event>` run the way Claude Code runs it: as a child of a long-lived
// `claude` process (here a script named claude that runs one hook per line it reads), against a
// real team folder. The member is that process, as for the MCP server.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processStart } from "@muster/node";
import type { Roster } from "@muster/roster";
import { lineQueue, tmuxEnv } from "@muster/test-support";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";

export const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");

export type HookAnswer = {
  status: number;
  stdout: string;
  stderr: string;
  json: Record<string, unknown> | undefined;
};

/** A scratch folder with the fake `claude`; `claudeSession` starts one; `close` ends them all. */
export function claudeHooksKit(prefix: string) {
  const scratch = mkdtempSync(path.join(tmpdir(), prefix));
  const claude = path.join(scratch, "bin", "claude");
  mkdirSync(path.dirname(claude), { recursive: true });
  // One hook per input line "<event> <json>", or "<event> @<file>" for input kept in a file (a
  // large Write); "<event>:full …" writes its stdout and stderr to /dev/full (a write that fails
  // with ENOSPC). Answers "<status> <stdout b64> <stderr b64>".
  writeFileSync(
    claude,
    `#!/bin/bash
while IFS= read -r line; do
  input="\${line#* }"
  event="\${line%% *}"
  out="$0.out"; err="$0.err"; : >"$out"; : >"$err"
  if [[ "$event" == *:full ]]; then event="\${event%:full}"; out=/dev/full; err=/dev/full; fi
  if [[ "$input" == @* ]]; then
    "${process.execPath}" "${MUSTER}" hook claude "$event" <"\${input#@}" >"$out" 2>"$err"
  else
    "${process.execPath}" "${MUSTER}" hook claude "$event" <<<"$input" >"$out" 2>"$err"
  fi
  status=$?
  printf '%s %s %s\\n' "$status" "$(base64 -w0 < "$0.out")" "$(base64 -w0 < "$0.err")"
done
`,
  );
  chmodSync(claude, 0o755);
  let teams = 0;
  const children: ChildProcess[] = [];

  /** A Claude Code process in `cwd` (default: the scratch folder) on a fresh team folder. */
  async function claudeSession(env: Record<string, string> = {}, cwd = scratch) {
    teams += 1;
    const teamDir = path.join(scratch, `team-${teams}`);
    const child = spawn(claude, [], {
      cwd,
      env: tmuxEnv({ HOME: scratch, MUSTER_TEAM_DIR: teamDir, ...env }),
      stdio: ["pipe", "pipe", "inherit"],
    });
    children.push(child);
    const lines = lineQueue(child.stdout!);
    const roster: Roster = await openTestTeam(teamDir);
    /** Run one hook; `input` a JSON object, or `{ file }` naming a file that holds the input. */
    const hook = async (
      event: string,
      input: Record<string, unknown> | { file: string } | string = {},
      options: { full?: boolean } = {},
    ): Promise<HookAnswer> => {
      const line =
        typeof input === "string"
          ? input
          : "file" in input && typeof input.file === "string"
            ? `@${input.file}`
            : JSON.stringify({ session_id: "s1", hook_event_name: event, ...input });
      child.stdin!.write(`${event}${options.full ? ":full" : ""} ${line}\n`);
      const [status, out, err] = (await lines.next()).split(" ");
      const stdout = Buffer.from(out ?? "", "base64").toString();
      return {
        status: Number(status),
        stdout,
        stderr: Buffer.from(err ?? "", "base64").toString(),
        json: stdout.trim() ? (JSON.parse(stdout) as Record<string, unknown>) : undefined,
      };
    };
    const id = `claude-${child.pid}-${processStart(child.pid!)}`;
    const peer = async () => {
      await joinAsThisProcess(roster, "reviewer", "peer");
    };
    return { hook, roster, id, peer, teamDir };
  }

  return {
    scratch,
    claudeSession,
    /** End every session's process (after each test). */
    stop: () => {
      for (const child of children.splice(0)) child.kill("SIGKILL");
    },
    close: () => rmSync(scratch, { recursive: true, force: true }),
  };
}
