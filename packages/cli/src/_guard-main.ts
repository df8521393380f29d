// The main of `muster hook claude pre-tool-use` alone: Claude Code runs it before every edit, so it
// has a bundle of its own (_command-bundles.ts) holding the lease guard and what runs it
// (_guard-hook.ts), and nothing of the command line: no command table, parser or help. start.ts
// takes it for that exact command line only; any other is handed to the CLI's main (the shared
// build's, which this bundle does not hold), so a stray one still gets muster's full answer.
import { claudeGuard } from "@muster/mcp/hooks";
import type { Io } from "./_context.js";
import { guardHook } from "./_guard-hook.js";

/** The command line this main answers itself. */
const GUARD_LINE = ["hook", "claude", "pre-tool-use"] as const;

/** Write `text` to the command's output; rejects with the stream's error when it failed. */
function printer(io: Io) {
  // A failed write also raises 'error' on a stream: heard here, as _context.ts hears it.
  io.stdout.on?.("error", () => undefined);
  return (text: string) =>
    new Promise<void>((resolve, reject) => {
      io.stdout.write(text, (error) => (error ? reject(error) : resolve()));
    });
}

/** Run the command line; the guard ends the process itself once its answer is written. */
export async function main(argv: readonly string[], io: Io, version = "0.0.0"): Promise<number> {
  if (argv.length !== GUARD_LINE.length || GUARD_LINE.some((word, at) => argv[at] !== word)) {
    const shared = (await import("./_main.js")) as typeof import("./_main.js");
    return shared.main(argv, io, version);
  }
  await guardHook(io, printer(io), async () => claudeGuard);
  return 0;
}
