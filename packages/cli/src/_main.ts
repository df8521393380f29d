// The `muster` command line: parse, dispatch, and turn outcomes into exit codes (0 done, 1 refused
// or not found, 2 usage error). Commands are a table (see _commands.ts); every usage error is one
// line on stderr in muster's words, and with --json also a document on stdout, `ok` first.
import { didYouMean, nearestName, printable } from "@muster/core";
import { type Command, stringOption, type Values } from "./_command.js";
import { COMMANDS } from "./_commands.js";
import {
  type Context,
  createContext,
  type GlobalOptions,
  type Io,
  isRefused,
  Refusal,
  type Refused,
  UsageError,
} from "./_context.js";
import { commandHelp, commandHelpDocument, mainHelp, mainHelpDocument } from "./_help.js";
import { asksJson, parseCommand, splitCommand } from "./_parse.js";
import { registerSelf } from "./_self.js";

/**
 * How long a command's end waits for its team's connection to close. A stalled server (a frozen
 * host, a half-open route) never answers a close: the command has given its answer already.
 */
export const CLOSE_BOUND_MS = 1_000;

/** `work`, or nothing once `ms` have passed (the timer holds nothing). */
function bounded(work: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return Promise.race([work.catch(() => undefined), late]).finally(() => clearTimeout(timer));
}

/**
 * A usage error: its line on stderr, and with --json its document on stdout; exit status 2. A
 * `suggestion` (the word the user most likely meant) is named in both.
 */
function usage(io: Io, json: boolean, line: string, suggestion?: string): number {
  if (json)
    io.stdout.write(
      `${JSON.stringify({ ok: false, reason: "usage", error: line, ...(suggestion === undefined ? {} : { suggestion }) }, null, 2)}\n`,
    );
  io.stderr.write(`${line}\n`);
  return 2;
}

/** The usage error's line: what is wrong, the suggestion if any, then where to read more. */
const usageLine = (what: string, suggestion: string | undefined, more: string) =>
  suggestion === undefined ? `${what}; ${more}` : `${what}; ${didYouMean(suggestion)} ${more}`;

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
  return runCommand(context, name, command, parsed);
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

/** A refusal, returned or thrown: its document with --json (unless quiet), its line; status 1. */
function refuse(context: Context, refusal: Omit<Refused, "ok">): number {
  if (context.json && !refusal.details.quiet)
    context.emit({ ok: false, reason: refusal.reason, error: refusal.error, ...refusal.details });
  context.io.stderr.write(`muster: ${printable(refusal.error)}\n`);
  return 1;
}

/** Run a parsed command and turn what it answers, returns or throws into the exit status. */
async function runCommand(
  context: Context,
  name: string,
  command: Command,
  { values, positionals }: { values: Values; positionals: string[] },
): Promise<number> {
  const io = context.io;
  try {
    const answer = await command.run(context, values, positionals);
    if (isRefused(answer)) return refuse(context, answer);
    const failed = await context.settled();
    // A closed output (`| head`) ends any command quietly; any other failed write is one line.
    if (!failed || failed.code === "EPIPE") return 0;
    io.stderr.write(
      `muster: cannot write the output (${failed.code ?? failed.message}); free space or fix where it goes\n`,
    );
    return 1;
  } catch (error) {
    if (error instanceof UsageError)
      return usage(
        io,
        context.json,
        usageLine(
          `muster ${name}: ${printable(error.message)}`,
          error.suggestion,
          `see muster ${name} --help`,
        ),
        error.suggestion,
      );
    // The wiring's error helpers are imported here, on the way out: a start does not load them.
    const { errorMessage, SpawnRefusal } = await import("./_effects.js");
    const reason =
      error instanceof Refusal || error instanceof SpawnRefusal ? error.reason : "error";
    const details = error instanceof Refusal ? error.details : {};
    return refuse(context, { reason, error: errorMessage(error), details });
  } finally {
    // A team on NATS holds a connection open; the command is done with it, within a bound.
    await bounded(context.close(), CLOSE_BOUND_MS);
  }
}

// The dashboard's actions run a command line in this process (_self.ts).
registerSelf(main, Object.keys(COMMANDS));
