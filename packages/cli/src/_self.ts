// The CLI's own command line, as the dashboard's actions run it in their process: registered by
// _main.ts when it loads, so that an action reaches `main` and the command table without
// importing them back (the dashboard is itself one of their commands).
import type { GlobalOptions, Io } from "./_context.js";

/** `main` of _main.ts: run a command line, the answer its exit status. */
export type RunCommand = (
  argv: readonly string[],
  io: Io,
  version?: string,
  shared?: GlobalOptions["shared"],
) => Promise<number>;

let registered: { run: RunCommand; names: ReadonlySet<string> } | undefined;

/** Called once by _main.ts: its `main` and the names of its commands. */
export function registerSelf(run: RunCommand, names: Iterable<string>): void {
  registered = { run, names: new Set(names) };
}

/** The registered command line; undefined when _main.ts has not loaded (no command runs then). */
export function self(): { run: RunCommand; names: ReadonlySet<string> } | undefined {
  return registered;
}
