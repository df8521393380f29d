// `muster --help` and `muster <command> --help`, written from the command table.
import { type Command, GLOBAL_HELP } from "./_command.js";
import { COMMANDS } from "./_commands.js";

export function mainHelp(version: string): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    `muster ${version} — the coding agents in your tmux panes, working as one team on one repository`,
    "",
    "Usage: muster [command] [options]   (options go before or after the command)",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(
      ([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`,
    ),
    "",
    "Options for every command:",
    ...GLOBAL_HELP.map((line) => `  ${line}`),
    "",
    "Exit status: 0 done, 1 refused or not found (the reason on stderr), 2 usage error.",
    "Run muster <command> --help for a command's own options.",
  ].join("\n");
}

export async function commandHelp(name: string, command: Command): Promise<string> {
  return [
    `muster ${name} — ${command.summary}`,
    "",
    `Usage: ${command.usage}`,
    ...(command.help.length > 0
      ? ["", "Options:", ...command.help.map((line) => `  ${line}`)]
      : []),
    ...((await command.moreHelp?.()) ?? []),
    "",
    "Options for every command:",
    ...GLOBAL_HELP.map((line) => `  ${line}`),
  ].join("\n");
}
