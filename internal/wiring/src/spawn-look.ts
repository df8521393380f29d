// Looking at a spawned pane while the spawn waits, and for a moment after the agent joined: has its
// engine said it cannot run a turn (core's ENGINE_TROUBLES: no model or key, not signed in, cannot
// reach its service), or did its program end at start? The pane is opened with tmux's
// `remain-on-exit failed`, so an engine that dies keeps its last words there for the person to
// read. The words are core's data; this file only reads the pane and says what it found.
import { type EngineTrouble, engineTrouble, lastWords } from "@muster/core/internal";
import { readPaneText, type SpawnRecord, type TmuxRunner } from "@muster/tmux";

/** Why a spawned engine cannot work, as its pane showed it. */
export type SpawnTrouble =
  /** The engine runs, and says it cannot run a turn. */
  | { kind: "said"; said: EngineTrouble }
  /** Its program ended: its status and last words (and what they mean, where core knows them). */
  | {
      kind: "exited";
      status?: number | undefined;
      signal?: number | undefined;
      lastWords: string[];
      said?: EngineTrouble | undefined;
    }
  /** Its pane closed (the program ended well, or someone closed it): nothing left to read. */
  | { kind: "gone" };

/** One look at the spawned pane: the trouble it shows, or undefined while it runs and shows none. */
export async function lookForTrouble(
  run: TmuxRunner,
  record: SpawnRecord,
): Promise<SpawnTrouble | undefined> {
  // A tmux that did not answer says nothing of the pane: no trouble seen, this time.
  const read = () => readPaneText(run, { socket: record.server }, record.pane).catch(() => null);
  let seen = await read();
  // tmux marks a pane dead at its output's end, and learns the exit status when it reaps the
  // program a moment later (measured on 3.3a under load): wait up to 2 s for the status.
  const ended = () => seen?.status !== undefined || seen?.signal !== undefined;
  for (let attempt = 0; attempt < 20 && seen?.dead && !ended(); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = (await read()) ?? seen;
  }
  if (seen === null) return undefined;
  if (!seen) return { kind: "gone" };
  const said = engineTrouble(record.engine, seen.text);
  if (seen.dead)
    return {
      kind: "exited",
      status: seen.status,
      signal: seen.signal,
      lastWords: lastWords(seen.text),
      said,
    };
  return said ? { kind: "said", said } : undefined;
}

/** Your engine's name for a person. */
const ENGINE_NAMES: Readonly<Record<string, string>> = {
  pi: "pi",
  codex: "Codex",
  claude: "Claude Code",
};
const nameOf = (engine: string) =>
  Object.hasOwn(ENGINE_NAMES, engine) ? ENGINE_NAMES[engine]! : engine;

/**
 * The trouble in one line (what happened, then what to do), its engine's words quoted: "pi cannot
 * run a turn: it says "Error: No API key found …" in pane %7 (left open for you to read); give pi a
 * model: …; end it with muster stop bob".
 */
export function troubleLine(record: SpawnRecord, trouble: SpawnTrouble): string {
  const name = nameOf(record.engine);
  const stop = `end it with muster stop ${record.label}`;
  if (trouble.kind === "gone")
    return `${name} ended at start and its pane ${record.pane} closed with it; run ${record.engine} by hand in a pane to see what it says`;
  if (trouble.kind === "said")
    return `${name} cannot run a turn: it says "${trouble.said.words}" in pane ${record.pane} (left open for you to read); ${trouble.said.fix}; ${stop}`;
  const status =
    trouble.status !== undefined
      ? ` (status ${trouble.status})`
      : trouble.signal !== undefined
        ? ` (signal ${trouble.signal})`
        : "";
  const words = trouble.said
    ? `: it says "${trouble.said.words}"`
    : trouble.lastWords.length > 0
      ? `; its last words: "${trouble.lastWords.join(" / ")}"`
      : ", saying nothing";
  const fix = trouble.said ? `; ${trouble.said.fix}` : "";
  return `${name} exited at start${status}${words}; its pane ${record.pane} is kept for you to read${fix}; ${stop} to close it`;
}
