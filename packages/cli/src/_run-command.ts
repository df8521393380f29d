// Running a command once its line is read, and the usage errors and refusals it ends with: what
// the command line's main (_main.ts) and a hot command line's own main (_agents-main.ts) share,
// so a command answers, refuses and fails alike whichever main ran it.
import { didYouMean, printable } from "@muster/core";
import { type Context, type Io, isRefused, Refusal, type Refused, UsageError } from "./_context.js";

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
export function usage(io: Io, json: boolean, line: string, suggestion?: string): number {
  if (json)
    io.stdout.write(
      `${JSON.stringify({ ok: false, reason: "usage", error: line, ...(suggestion === undefined ? {} : { suggestion }) }, null, 2)}\n`,
    );
  io.stderr.write(`${line}\n`);
  return 2;
}

/** The usage error's line: what is wrong, the suggestion if any, then where to read more. */
export const usageLine = (what: string, suggestion: string | undefined, more: string) =>
  suggestion === undefined ? `${what}; ${more}` : `${what}; ${didYouMean(suggestion)} ${more}`;

/** A refusal, returned or thrown: its document with --json (unless quiet), its line; status 1. */
function refuse(context: Context, refusal: Omit<Refused, "ok">): number {
  if (context.json && !refusal.details.quiet)
    context.emit({ ok: false, reason: refusal.reason, error: refusal.error, ...refusal.details });
  context.io.stderr.write(`muster: ${printable(refusal.error)}\n`);
  return 1;
}

/** Run a parsed command and turn what it answers, returns or throws into the exit status. */
export async function runCommand(
  context: Context,
  name: string,
  run: () => Promise<unknown>,
): Promise<number> {
  const io = context.io;
  try {
    const answer = await run();
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
