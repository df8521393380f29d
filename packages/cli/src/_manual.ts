// Shell completions (bash, zsh, fish) and the muster(1) manual page, written from the command
// table: each command's name, summary, usage, options and help lines, and the options every
// command takes. Nothing here is typed twice, so neither can drift from `--help`. The build
// writes them into dist (dist/completions/, dist/muster.1); `muster completion` prints them.
import { type Command, GLOBAL, GLOBAL_HELP, type Options } from "./_command.js";

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

type Table = Readonly<Record<string, Command>>;

/** Every option a command takes, long names with `--`, and the one-letter ones with `-`. */
function flags(options: Options): string[] {
  return Object.entries(options).flatMap(([name, option]) => [
    `--${name}`,
    ...(option.short ? [`-${option.short}`] : []),
  ]);
}

/** What a shell script may quote inside single quotes. */
const quoted = (text: string) => text.replaceAll("'", "'\\''");

/** The words a command's first argument is one of (`muster board [list | show | …]`). */
const subcommands = (command: Command): readonly string[] => command.words ?? [];

function bash(table: Table): string {
  const names = Object.keys(table);
  const cases = names.map((name) => {
    const command = table[name]!;
    const words = [...subcommands(command), ...flags(command.options), ...flags(GLOBAL)];
    return `    ${name}) words='${quoted(words.join(" "))}' ;;`;
  });
  return [
    "# bash completion for muster, written from its command table (muster completion bash)",
    "_muster() {",
    `  local current="\${COMP_WORDS[COMP_CWORD]}" command="" word words`,
    `  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do`,
    '    case "$word" in -*) ;; *) command="$word"; break ;; esac',
    "  done",
    '  case "$command" in',
    `    "") words='${quoted([...names, ...flags(GLOBAL)].join(" "))}' ;;`,
    ...cases,
    "    *) words='' ;;",
    "  esac",
    '  COMPREPLY=($(compgen -W "$words" -- "$current"))',
    `  [ "\${#COMPREPLY[@]}" -eq 0 ] && COMPREPLY=($(compgen -f -- "$current"))`,
    "}",
    "complete -F _muster muster",
    "",
  ].join("\n");
}

function zsh(table: Table): string {
  const names = Object.keys(table);
  const described = names.map(
    (name) => `    '${quoted(name)}:${quoted(table[name]!.summary.replaceAll(":", "\\:"))}'`,
  );
  const cases = names.map((name) => {
    const command = table[name]!;
    const words = [...subcommands(command), ...flags(command.options), ...flags(GLOBAL)];
    return `    ${name}) compadd -- ${words.map((word) => `'${quoted(word)}'`).join(" ")} ;;`;
  });
  return [
    "#compdef muster",
    "# zsh completion for muster, written from its command table (muster completion zsh)",
    "_muster() {",
    "  local -a commands",
    "  commands=(",
    ...described,
    "  )",
    "  if (( CURRENT == 2 )); then",
    "    _describe 'muster command' commands",
    "    return",
    "  fi",
    "  case $words[2] in",
    ...cases,
    "  esac",
    "  _files",
    "}",
    'if [ "$funcstack[1]" = "_muster" ]; then _muster "$@"; else compdef _muster muster; fi',
    "",
  ].join("\n");
}

function fish(table: Table): string {
  const names = Object.keys(table);
  const lines = [
    "# fish completion for muster, written from its command table (muster completion fish)",
    "complete -c muster -f",
    ...Object.entries(GLOBAL).map(
      ([name, option]) =>
        `complete -c muster -l ${name}${option.short ? ` -s ${option.short}` : ""}${option.type === "string" ? " -r" : ""}`,
    ),
  ];
  for (const name of names) {
    const command = table[name]!;
    lines.push(
      `complete -c muster -n __fish_use_subcommand -a ${name} -d '${quoted(command.summary)}'`,
    );
    for (const sub of subcommands(command))
      lines.push(`complete -c muster -n '__fish_seen_subcommand_from ${name}' -a ${sub}`);
    for (const [option, spec] of Object.entries(command.options))
      lines.push(
        `complete -c muster -n '__fish_seen_subcommand_from ${name}' -l ${option}${spec.short ? ` -s ${spec.short}` : ""}${spec.type === "string" ? " -r" : ""}`,
      );
  }
  return `${lines.join("\n")}\n`;
}

/** The completion script for one shell. */
export function completionScript(shell: Shell, table: Table): string {
  return shell === "bash" ? bash(table) : shell === "zsh" ? zsh(table) : fish(table);
}

/** Text as roff reads it: backslashes doubled, a leading dot or quote escaped, dashes literal. */
const roff = (text: string) =>
  text
    .replaceAll("\\", "\\e")
    .replaceAll("-", "\\-")
    .replace(/^([.'])/u, "\\&$1");

/** The muster(1) manual page, in roff (man -l, or installed by npm from package.json's "man"). */
export function manualPage(table: Table): string {
  const lines = [
    '.TH MUSTER 1 "" "muster" "User Commands"',
    ".SH NAME",
    "muster \\- one team of the coding agents you run side by side in tmux",
    ".SH SYNOPSIS",
    ".B muster",
    "[\\fIcommand\\fR] [\\fIoptions\\fR]",
    ".SH DESCRIPTION",
    "muster lets the coding agents one person runs in tmux (pi, Codex, Claude Code and others) work",
    "as one team on one repository: each joins under a label, they send each other mail that can",
    "wake an idle agent, share a task board, and lease the paths they change. With no command,",
    ".B muster",
    "shows the team of the repository you are in.",
    ".SH COMMANDS",
  ];
  for (const command of Object.values(table)) {
    lines.push(".TP", `.B ${roff(command.usage)}`, roff(command.summary));
    if (command.help.length > 0) lines.push(".RS", ".nf", ...command.help.map(roff), ".fi", ".RE");
  }
  lines.push(
    ".SH OPTIONS",
    "Every command takes these, before or after the command:",
    ".RS",
    ".nf",
    ...GLOBAL_HELP.map(roff),
    ".fi",
    ".RE",
    ".SH EXIT STATUS",
    "0 done; 1 refused or not found (one line on stderr saying what happened and what to do;",
    "with \\-\\-json, also a document with ok false on stdout); 2 a usage error.",
    ".SH ENVIRONMENT",
    ".TP",
    ".B MUSTER_TEAM_DIR",
    "the team folder, exactly (default: found from the repository)",
    ".TP",
    ".B MUSTER_LABEL",
    "the label to join under",
    ".TP",
    ".B MUSTER_MAIL",
    "the mail mode at join: off, quiet or wakes",
    ".TP",
    ".B NO_COLOR",
    "no colour, even on a terminal",
    ".SH SEE ALSO",
    "tmux(1), git-worktree(1); each command's own \\-\\-help",
    "",
  );
  return lines.join("\n");
}

/**
 * The commands as the CLI's README lists them (markdown): each usage, then its summary, one item
 * per command, no line a terminal or a registry page would have to wrap far.
 */
export function commandList(table: Table): string {
  return Object.values(table)
    .map((command) => `- \`${command.usage}\`  \n  ${command.summary}`)
    .join("\n");
}
