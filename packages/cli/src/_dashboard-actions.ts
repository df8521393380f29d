// The dashboard's actions run as the CLI runs them: the same command line through the CLI's own
// `main` (parse, the command's row, its refusals), in the dashboard's process, with the
// dashboard's team (its roster stays open) and its global options. Its output is taken, not
// written to the terminal the dashboard draws on, and comes back as the one line shown: the
// answer (what the command printed) or the refusal (its error line). Nothing here decides.
import { Readable } from "node:stream";
import { printable } from "@muster/core";
import type { Context, Io } from "./_context.js";
import { self } from "./_self.js";

/** Whether this muster has the command (`up` comes with the declared team). */
export async function hasCommand(name: string): Promise<boolean> {
  return self()?.names.has(name) ?? false;
}

/** The one line a command's output comes to: its lines joined, each shown safely. */
const oneLine = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => printable(line))
    .join(" · ");

/**
 * Run `argv` (a command and its arguments) as `muster` would, in this process: the answer line,
 * or the refusal's (`muster: ` left off) with ok false.
 */
export async function runAction(
  context: Context,
  argv: readonly string[],
): Promise<{ ok: boolean; line: string }> {
  const main = self()?.run;
  if (!main) return { ok: false, line: "muster's command line is not loaded here" };
  let out = "";
  let err = "";
  const io: Io = {
    stdout: {
      write(text: string, callback?: (error?: Error | null) => void) {
        out += text;
        callback?.();
        return true;
      },
      isTTY: false,
    },
    stderr: {
      write(text: string) {
        err += text;
        return true;
      },
      isTTY: false,
    },
    // No keys reach the command: the dashboard's terminal is the dashboard's.
    stdin: Readable.from([]),
    env: context.io.env,
    cwd: context.io.cwd,
  };
  const [name = "status", ...rest] = argv;
  const status = await main([name, ...context.globalFlags, ...rest], io, "0.0.0", {
    team: context.team,
    roster: context.roster,
  }).catch((error: unknown) => {
    err += `muster: ${String(error)}\n`;
    return 1;
  });
  if (status === 0) return { ok: true, line: oneLine(out) || `${name}: done` };
  const refusals = err.split("\n").filter((line) => line.startsWith("muster: "));
  const said = refusals.length > 0 ? refusals.join("\n").replace(/^muster: /gm, "") : err;
  return { ok: false, line: oneLine(said) || `${name} failed` };
}
