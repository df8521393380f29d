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

/** `muster --help --json`: the same page as data. */
export function mainHelpDocument(version: string) {
  return {
    version,
    usage: "muster [command] [options]",
    commands: Object.entries(COMMANDS).map(([name, command]) => ({
      name,
      summary: command.summary,
      usage: command.usage,
    })),
    options: GLOBAL_HELP,
    exitStatus: { 0: "done", 1: "refused or not found", 2: "usage error" },
  };
}

/** `muster <command> --help --json`: the page as data, its examples apart. */
export async function commandHelpDocument(name: string, command: Command) {
  return {
    name,
    summary: command.summary,
    usage: command.usage,
    help: command.help,
    more: (await command.moreHelp?.()) ?? [],
    examples: helpExamples(command).map((example) => example.line),
    options: GLOBAL_HELP,
  };
}

/** A help line that starts examples (`Example:`, `Examples:`), and what follows it on the line. */
const EXAMPLE_START = /\bExamples?:(.*)$/;

/**
 * The example command lines of a help page: what follows `Example:` or `Examples:`, and the
 * indented lines after it, split where two examples share a line (`; ` or three spaces). Each is
 * the `muster …` command it shows, as written and as its words (quotes read as a shell would, up
 * to a pipe or a redirection); text around it (an environment setting, a comment) is not part.
 */
export function helpExamples(command: Pick<Command, "help">) {
  const texts: string[] = [];
  let inExamples = false;
  for (const line of command.help) {
    const start = EXAMPLE_START.exec(line);
    if (start) texts.push(start[1] ?? "");
    else if (inExamples && /^\s/.test(line)) texts.push(line);
    inExamples = start !== null || (inExamples && /^\s/.test(line));
  }
  return (
    texts
      // A comment in parentheses is not part of any example (it may hold `;` or name a command).
      .flatMap((text) => text.replace(/\s\([^)]*\)/g, "").split(/;\s+|\s{3,}/))
      .flatMap((piece) => {
        const at = /(?:^|[\s|])(muster\s.*)$/.exec(piece.trim());
        return at?.[1] ? [exampleWords(at[1])] : [];
      })
  );
}

/** A command line's words, quotes read as a shell reads them, up to a pipe or redirection. */
function exampleWords(text: string): { line: string; argv: string[] } {
  const words: string[] = [];
  let word: string | undefined;
  let index = 0;
  for (; index < text.length; index += 1) {
    const char = text[index]!;
    if (char === "'" || char === '"') {
      const end = text.indexOf(char, index + 1);
      word = (word ?? "") + text.slice(index + 1, end < 0 ? undefined : end);
      index = end < 0 ? text.length : end;
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if ("|<>&;".includes(char)) break;
    else word = (word ?? "") + char;
  }
  if (word !== undefined) words.push(word);
  return { line: text.slice(0, index).trim(), argv: words.slice(1) };
}
