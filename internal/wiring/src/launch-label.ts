// The label `muster spawn` gave a caller's launch, as every door that joins a caller asks it: the
// spawn records of this host's team folder, the caller's server and pane now, and the start times
// of the records' processes, handed to tmux's `launchOf` (the rule). Where no record is the
// caller's own, there is no label here and the door's MUSTER_LABEL answers.
import { processStart } from "@muster/node";
import {
  type LaunchMatch,
  launchOf,
  launchPids,
  listPanes,
  type ProcessLink,
  type Seat,
  type TmuxRunner,
} from "@muster/tmux";
import { readSpawnRecords } from "./spawn-records.ts";

/** The caller as its door found it: its engine, its agent's process and its proven seat. */
export type LaunchedCaller = { engine: string; pid: number; seat: Seat | undefined };

export type LaunchEffects = {
  /** The folder holding `spawned/` (the wiring's `hostFolder`). */
  teamDir: string;
  run: TmuxRunner;
  processes: () => Promise<readonly ProcessLink[]>;
};

/** Which spawn record is the caller's launch; undefined when it has no seat or no record could be. */
async function launchOfCaller(
  caller: LaunchedCaller,
  effects: LaunchEffects,
): Promise<LaunchMatch | undefined> {
  const { seat } = caller;
  if (!seat) return undefined;
  // A folder that is not this user's own holds no record to believe.
  const read = await readSpawnRecords({ dir: effects.teamDir }).catch(() => undefined);
  const records = read?.records ?? [];
  const pids = launchPids(records, { ...caller, ...seat });
  if (pids.length === 0) return undefined;
  const [listed, processes] = await Promise.all([
    listPanes(effects.run, { socket: seat.server }),
    effects.processes(),
  ]);
  if (!listed.ok) return undefined;
  // The server as it answers now: a record from before a restart names another server pid.
  const { server, panes } = listed.inventory;
  const who = { ...caller, server: server.socket, serverPid: server.pid, pane: seat.pane };
  const pane = panes.find((candidate) => candidate.id === seat.pane && !candidate.dead);
  const starts = new Map<number, string>();
  for (const pid of pids) {
    const start = processStart(pid);
    if (start !== undefined) starts.set(pid, start);
  }
  return launchOf(records, who, { panePid: pane?.pid, starts, processes });
}

/**
 * The label of the caller's own launch, or undefined (see `launchOfCaller`). A record that cannot
 * be checked now (no process table, no answer) is not believed: the door's own label answers.
 */
export async function launchLabel(
  caller: LaunchedCaller,
  effects: LaunchEffects,
): Promise<string | undefined> {
  const match = await launchOfCaller(caller, effects).catch(() => undefined);
  return match?.ok ? match.label : undefined;
}
