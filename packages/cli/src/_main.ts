// The `muster` command line: parse, dispatch, and turn outcomes into exit codes (0 done, 1 refused
// or not found, 2 usage error). Commands are a table (see _commands.ts); every usage error is one
// line on stderr in muster's words, and with --json also a document on stdout, `ok` first.
import { nearestName, printable } from "@muster/core";
import { stringOption } from "./_command.js";
import { COMMANDS } from "./_commands.js";
import { createContext, type GlobalOptions, type Io } from "./_context.js";
import { commandHelp, commandHelpDocument, mainHelp, mainHelpDocument } from "./_help.js";
import { asksJson, parseCommand, splitCommand } from "./_parse.js";
import { runCommand, usage, usageLine } from "./_run-command.js";
import { registerSelf } from "./_self.js";

/** `name` is no command: a usage error naming the nearest one. */
function unknownCommand(io: Io, json: boolean, name: string): number {
  const suggestion = nearestName(name, Object.keys(COMMANDS));
  const line = usageLine(
    `muster: unknown command "${printable(name)}"`,
    suggestion,
    "run muster --help for the list",
  );
  return usage(io, json, line, suggestion);
}

/** One JSON document on stdout, for the answers main gives itself (--version, --help). */
const printJson = (io: Io, document: object) =>
  io.stdout.write(`${JSON.stringify({ ok: true, ...document }, null, 2)}\n`);

/**
 * Run the command line; the answer is the exit status. `shared`: the team of a command that runs
 * this one in its own process (the dashboard's actions), used and left open.
 */
export async function main(
  argv: readonly string[],
  io: Io,
  version = "0.0.0",
  shared?: GlobalOptions["shared"],
): Promise<number> {
  const { name: given, rest } = splitCommand(argv.map((word) => (word === "-V" ? "-v" : word)));
  const name = given ?? "status";
  const wantsJson = asksJson(rest);
  // Only the table's own names: "constructor" or "__proto__" are not commands.
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    if (given === "help") return help(io, wantsJson, rest, version);
    return unknownCommand(io, wantsJson, name);
  }
  const parsed = parseCommand(command, rest);
  if (!parsed.ok)
    return usage(
      io,
      wantsJson,
      usageLine(`muster ${name}: ${parsed.error}`, parsed.suggestion, `see muster ${name} --help`),
      parsed.suggestion,
    );
  const { values, positionals } = parsed;
  if (values.version) {
    if (wantsJson) printJson(io, { version });
    else io.stdout.write(`${version}\n`);
    return 0;
  }
  if (values.help) {
    if (wantsJson)
      printJson(io, given ? await commandHelpDocument(name, command) : mainHelpDocument(version));
    else io.stdout.write(`${given ? await commandHelp(name, command) : mainHelp(version)}\n`);
    return 0;
  }
  const json = values.json === true;
  const [min, max] = command.positionals;
  if (positionals.length < min || positionals.length > max)
    return usage(io, json, `muster ${name}: usage: ${command.usage}`);
  const context = createContext(io, {
    json,
    teamDir: stringOption(values["team-dir"]),
    socketName: stringOption(values["socket-name"]),
    socketPath: stringOption(values["socket-path"]),
    shared,
  });
  return runCommand(context, name, () => command.run(context, values, positionals));
}

/** `muster help [command]`: the help of the command named, else muster's. */
async function help(io: Io, json: boolean, rest: string[], version: string): Promise<number> {
  const topic = rest.find((word) => !word.startsWith("-"));
  const chosen = topic && Object.hasOwn(COMMANDS, topic) ? COMMANDS[topic] : undefined;
  // A topic that is no command is the same usage error as running it: `help stauts`.
  if (topic && topic !== "help" && !chosen) return unknownCommand(io, json, topic);
  if (json)
    printJson(
      io,
      chosen && topic ? await commandHelpDocument(topic, chosen) : mainHelpDocument(version),
    );
  else
    io.stdout.write(`${chosen && topic ? await commandHelp(topic, chosen) : mainHelp(version)}\n`);
  return 0;
}

// The dashboard's actions run a command line in this process (_self.ts).
registerSelf(main, Object.keys(COMMANDS));
