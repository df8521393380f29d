// What muster spawned, seen again: whether a spawn record's pane is still the one muster opened
// (tmux's decideStop, asked of the server now), and the spawned agents a scan sees (for a
// running reconciler to adopt as verified); and the mark a stop or a down leaves on its members.
import { processAlive, processStart, readProcessTable } from "@muster/node";
import {
  BUILTIN_ENGINES,
  type FoundAgent,
  findSpawned,
  type ScanResult,
  scanResult,
  seatKeyOf,
} from "@muster/reconciler";
import type { Roster } from "@muster/roster";
import {
  closePaneArgs,
  decideStop,
  listPanes,
  runTmux,
  type SpawnRecord,
  type StopDecision,
  type TmuxRunner,
} from "@muster/tmux";
import { writeSpawnRecord } from "./spawn-records.ts";

/** Is the record's pane still the one muster opened? Asked of its server now. */
export async function judgeSpawned(run: TmuxRunner, record: SpawnRecord) {
  const listed = await listPanes(run, { socket: record.server });
  if (!listed.ok) return decideStop(record, { answered: false });
  return decideStop(record, {
    answered: true,
    server: listed.inventory.server,
    pane: listed.inventory.panes.find((pane) => pane.id === record.pane),
    start: processStart(record.pid),
  });
}

/**
 * Does the record's pane still run what muster started there: the pane muster opened
 * (`judgeSpawned`), its process not ended? A pane kept dead after its process ended runs nothing,
 * nor does one whose process has exited but is not reaped yet (a zombie: tmux keeps such a pane,
 * dead, until it reaps it, which was seen to take half a minute after a quitting pi).
 */
export async function spawnedRuns(run: TmuxRunner, record: SpawnRecord): Promise<boolean> {
  return (await judgeSpawned(run, record)).ok && processAlive(record.pid, record.start) !== "dead";
}

/**
 * What `spawn --list` says of a record: `running` while its pane is the one muster opened and its
 * process has not ended; `exited` once that process ended (the pane kept dead, or a zombie tmux
 * has not reaped: its pid and start time still match); else why the pane is not judged muster's.
 */
export async function spawnedState(
  run: TmuxRunner,
  record: SpawnRecord,
): Promise<"running" | "exited" | Extract<StopDecision, { ok: false }>["reason"]> {
  const judged = await judgeSpawned(run, record);
  if (!judged.ok) return judged.reason;
  return processAlive(record.pid, record.start) === "dead" ? "exited" : "running";
}

/**
 * Close the record's pane if it is still the one muster opened (`judgeSpawned`: the same server,
 * and in the pane the process muster started, by pid and start time, or none, kept dead). The one
 * rule `muster stop` and `muster down` both close by: a pane it cannot prove is refused. True:
 * closed.
 */
export async function closeSpawnedPane(run: TmuxRunner, record: SpawnRecord): Promise<boolean> {
  const judged = await judgeSpawned(run, record);
  if (judged.ok) await runTmux(run, closePaneArgs({ socket: record.server }, record.pane));
  return judged.ok;
}

/**
 * Close the record's pane if it is the one muster opened and runs nothing now (`spawnedRuns`: its
 * process ended, the pane kept dead or its process not reaped yet): what `up` closes before it
 * brings the member back. A pane whose process runs, or one that cannot be judged, stays.
 */
export async function closeEndedPane(run: TmuxRunner, record: SpawnRecord): Promise<boolean> {
  const judged = await judgeSpawned(run, record);
  const ended = judged.ok && processAlive(record.pid, record.start) === "dead";
  if (ended) await runTmux(run, closePaneArgs({ socket: record.server }, record.pane));
  return ended;
}

/**
 * Whether a roster member is proven dead (pid and start time): its record holds its label for no
 * one (the roster's join takes it over), so it is neither live nor in the way of its label.
 */
export const provenDead = (member: { state: string; reason: string }) =>
  member.state === "gone" && member.reason === "process-dead";

/**
 * The agents muster spawned, as one scan sees them: each record whose pane is still the one muster
 * opened (server, pane, process) and runs the record's engine, with that engine's process. A
 * running reconciler adopts them as verified (`adoptVerified`) instead of discovering them anew.
 */
export async function spawnedAgents(
  run: TmuxRunner,
  records: readonly SpawnRecord[],
  scan: ScanResult,
): Promise<{ record: SpawnRecord; agent: FoundAgent }[]> {
  const found: { record: SpawnRecord; agent: FoundAgent }[] = [];
  for (const record of records) {
    const spawned = findSpawned(scan, {
      seatKey: seatKeyOf(record.server, record.pane),
      engine: record.engine,
    });
    if (spawned.ok && (await judgeSpawned(run, record)).ok)
      found.push({ record, agent: spawned.agent });
  }
  return found;
}

/**
 * The engine's process in a spawned pane now (the pane's own process or below it: a wrapper may
 * sit between), as one scan of the record's server and the process table shows it; else undefined.
 */
export async function engineInPane(
  run: TmuxRunner,
  record: SpawnRecord,
  exclude: readonly number[] = [],
): Promise<FoundAgent | undefined> {
  const [listed, table] = await Promise.all([
    listPanes(run, { socket: record.server }),
    readProcessTable(),
  ]);
  const scan = scanResult(
    {
      servers: [
        { server: record.server, panes: listed.ok ? listed.inventory.panes : "unavailable" },
      ],
      processes: table.ok ? table.processes : { error: table.error },
      exclude: [process.pid, ...exclude],
    },
    BUILTIN_ENGINES,
  );
  const found = findSpawned(scan, {
    seatKey: seatKeyOf(record.server, record.pane),
    engine: record.engine,
  });
  return found.ok ? found.agent : undefined;
}

/**
 * Mark the members under `label` as ended on purpose (the roster's `markEnding`), before `muster
 * stop` or `muster down` ends their process: their death is then not a crash. Every record under
 * the label is marked, a crashed one too (a stop of a crashed member puts it away). The ids marked.
 */
export async function markEnded(
  roster: Pick<Roster, "read" | "markEnding">,
  label: string,
  by: "stop" | "down",
): Promise<string[]> {
  const read = await roster.read();
  if (!read.ok) return [];
  const marked: string[] = [];
  for (const member of read.members) {
    if (member.label.toLowerCase() !== label.toLowerCase()) continue;
    const done = await roster.markEnding(member.id, by);
    if (done.ok && done.marked) marked.push(member.id);
  }
  return marked;
}

/**
 * Mark a member muster spawned as ending, before a stop or a down asks its engine to quit: its
 * spawn record first (`ending`), then its roster records (`markEnded`). The roster's mark goes
 * with the member's record when the member leaves on its way out (pi does, as it quits), while its
 * process and pane outlast that leave by a moment: the spawn record's mark stays, so an `up` after
 * a down killed meanwhile waits for that pane instead of calling it live. The ids marked.
 */
export async function markSpawnedEnding(
  team: { dir: string },
  roster: Pick<Roster, "read" | "markEnding">,
  record: SpawnRecord,
  by: "stop" | "down",
): Promise<string[]> {
  await writeSpawnRecord(team, { ...record, ending: new Date().toISOString() });
  return markEnded(roster, record.label, by);
}
