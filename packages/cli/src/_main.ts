// The `muster` command line: parse, dispatch, and turn outcomes into exit codes (0 done, 1 refused
// or not found, 2 usage error). Commands are a table: name, summary, options, what runs.
import { parseArgs } from "node:util";
import { printable } from "@muster/core";
import { errorMessage, SpawnRefusal } from "@muster/wiring";
import { COMMANDS, type Command, GLOBAL, GLOBAL_HELP, str, type Values } from "./_commands.js";
import { createContext, type Io, Refusal, UsageError } from "./_context.js";

function mainHelp(version: string): string {
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

function commandHelp(name: string, command: Command): string {
  return [
    `muster ${name} — ${command.summary}`,
    "",
    `Usage: ${command.usage}`,
    ...(command.help.length > 0
      ? ["", "Options:", ...command.help.map((line) => `  ${line}`)]
      : []),
    "",
    "Options for every command:",
    ...GLOBAL_HELP.map((line) => `  ${line}`),
  ].join("\n");
}

/** Options that take a value (any command's): the word after one is its value, not a command. */
const TAKES_VALUE = new Set(
  [GLOBAL, ...Object.values(COMMANDS).map((command) => command.options)].flatMap((options) =>
    Object.entries(options)
      .filter(
        ([long, option]) =>
          option.type === "string" &&
          !Object.values(COMMANDS).some((command) => command.bare?.[long] !== undefined),
      )
      .flatMap(([long, option]) => [`--${long}`, ...(option.short ? [`-${option.short}`] : [])]),
  ),
);

/**
 * The command's name, wherever global options put it (`muster -L work agents`, as in tmux and
 * git), and every other word, for the parser: the first word that is neither an option nor a
 * global option's value.
 */
export function splitCommand(argv: readonly string[]): { name?: string; rest: string[] } {
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index]!;
    if (word === "--") break;
    if (word.startsWith("-")) {
      if (TAKES_VALUE.has(word)) index += 1;
      continue;
    }
    return { name: word, rest: [...argv.slice(0, index), ...argv.slice(index + 1)] };
  }
  return { rest: [...argv] };
}

/** Run the command line; the answer is the exit status. */
export async function main(argv: readonly string[], io: Io, version = "0.0.0"): Promise<number> {
  const { name: given, rest } = splitCommand(argv.map((word) => (word === "-V" ? "-v" : word)));
  const name = given ?? "status";
  // Only the table's own names: "constructor" or "__proto__" are not commands.
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    if (given === "help") {
      const topic = rest.find((word) => !word.startsWith("-"));
      const chosen = topic && Object.hasOwn(COMMANDS, topic) ? COMMANDS[topic] : undefined;
      io.stdout.write(`${chosen && topic ? commandHelp(topic, chosen) : mainHelp(version)}\n`);
      return 0;
    }
    io.stderr.write(
      `muster: unknown command "${printable(name)}"; run muster --help for the list\n`,
    );
    return 2;
  }
  let values: Values;
  let positionals: string[];
  // An option that may be given bare (`--wait`) takes its default value, so parseArgs sees one.
  const bare = command.bare ?? {};
  const end = rest.includes("--") ? rest.indexOf("--") : rest.length;
  const args = rest.map((word, index) =>
    index < end && word.startsWith("--") && Object.hasOwn(bare, word.slice(2))
      ? `${word}=${bare[word.slice(2)]}`
      : word,
  );
  try {
    const parsed = parseArgs({
      args,
      options: { ...GLOBAL, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    values = parsed.values as Values;
    positionals = parsed.positionals;
  } catch (error) {
    io.stderr.write(
      `muster ${name}: ${printable(errorMessage(error).split("\n")[0] ?? "")}; see muster ${name} --help\n`,
    );
    return 2;
  }
  if (values.version) {
    io.stdout.write(`${version}\n`);
    return 0;
  }
  if (values.help) {
    io.stdout.write(`${given ? commandHelp(name, command) : mainHelp(version)}\n`);
    return 0;
  }
  const [min, max] = command.positionals;
  if (positionals.length < min || positionals.length > max) {
    io.stderr.write(`muster ${name}: usage: ${command.usage}\n`);
    return 2;
  }
  const json = values.json === true;
  const context = createContext(io, {
    json,
    teamDir: str(values["team-dir"]),
    socketName: str(values["socket-name"]),
    socketPath: str(values["socket-path"]),
  });
  try {
    await command.run(context, values, positionals);
    const failed = await context.settled();
    // A closed output (`| head`) ends any command quietly; any other failed write is one line.
    if (!failed || failed.code === "EPIPE") return 0;
    io.stderr.write(
      `muster: cannot write the output (${failed.code ?? failed.message}); free space or fix where it goes\n`,
    );
    return 1;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`muster ${name}: ${printable(error.message)}; see muster ${name} --help\n`);
      return 2;
    }
    const reason =
      error instanceof Refusal || error instanceof SpawnRefusal ? error.reason : "error";
    const details = error instanceof Refusal ? error.details : {};
    if (json && !details.quiet)
      context.emit({ ok: false, reason, error: errorMessage(error), ...details });
    io.stderr.write(`muster: ${printable(errorMessage(error))}\n`);
    return 1;
  }
}
