// Before `muster spawn` claims a label or opens a pane: is the engine set up to join the team? An
// engine muster has not been installed into (no MCP entry for Codex or Claude Code, no extension
// for pi) would start, never join, and be waited on in silence until the time limit; so it is
// refused at once with the command that sets it up. The checks are doctor's (`engineChecks`, the
// installers' pure checks over the engine's files); this file only asks them for one engine.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Launch } from "@muster/reconciler";
import type { SpawnFailure } from "@muster/wiring";
import type { Context } from "./_context.js";
import { engineChecks, type SetUpEngine } from "./_doctor-engines.js";

/** The engines muster installs into: their name for a person, and the install that sets them up. */
const SET_UP: Readonly<Record<string, { engine: SetUpEngine; name: string; install: string }>> = {
  codex: { engine: "codex", name: "Codex", install: "muster install codex" },
  claude: { engine: "claude", name: "Claude Code", install: "muster install claude" },
  pi: { engine: "pi", name: "pi", install: "muster install pi" },
};

/** The package of muster's pi extension, as its package.json names it. */
const PI_EXTENSION = "@muster/pi-extension";

/** Whether the file or folder at `start` lies inside muster's pi extension package. */
function inPiExtension(start: string): boolean {
  for (let folder = start; ; folder = path.dirname(folder)) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8"));
      if (manifest?.name === PI_EXTENSION) return true;
    } catch {
      // no readable manifest here: look further up
    }
    if (path.dirname(folder) === folder) return false;
  }
}

/** pi's own `-e PATH` / `--extension PATH` arguments that load muster's extension for this run. */
export function loadsPiExtension(args: readonly string[], cwd: string): boolean {
  const paths = args.flatMap((arg, index) => {
    if (arg === "-e" || arg === "--extension") return args[index + 1] ?? [];
    return arg.startsWith("--extension=") ? arg.slice("--extension=".length) : [];
  });
  return paths.some((given) => inPiExtension(path.resolve(cwd, given)));
}

/**
 * The refusal for an engine that is not set up to join (or whose set-up broke: a moved install),
 * with the command that fixes it; undefined when it is set up, or is not an engine muster installs
 * into (`--command` names a command muster knows nothing of: it is not checked).
 */
export async function engineReady(
  context: Context,
  launch: Pick<Launch, "engine">,
  request: {
    extra?: readonly string[] | undefined;
    command?: readonly string[] | undefined;
    cwd: string;
  },
  again = "spawn again",
): Promise<SpawnFailure | undefined> {
  const known = Object.hasOwn(SET_UP, launch.engine) ? SET_UP[launch.engine] : undefined;
  if (!known || request.command) return undefined;
  if (known.engine === "pi" && loadsPiExtension(request.extra ?? [], request.cwd)) return undefined;
  const checks = await engineChecks(context, known.engine);
  const broken = checks.find((check) => !check.ok && !check.warn);
  if (broken)
    return {
      ok: false,
      reason: "engine-broken",
      error: `${known.name} would not join the team, so nothing was opened: ${broken.detail}`,
      fix: broken.fix ?? known.install,
    };
  if (checks.length > 0 && checks.every((check) => check.notSetUp))
    return {
      ok: false,
      reason: "engine-not-set-up",
      error: `${known.name} is not set up for muster here, so it would start and never join the team; nothing was opened`,
      fix: `run ${known.install}, then ${again}`,
    };
  return undefined;
}
