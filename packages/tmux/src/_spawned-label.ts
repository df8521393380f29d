// Which spawn record is a caller's own launch, so it joins under the label `muster spawn` gave it.
// An engine that serves many panes from one process (Codex's app-server daemon) hands every MCP
// server the first pane's environment, so MUSTER_LABEL names one label for all of them; the record
// names each launch's. A record is read as hostile: it counts only while everything it says still
// holds now (the server, the pane, the process muster started there and its start time) and the
// caller's own process runs under that process. Two records that both hold name no one.

import type { ProcessLink } from "./_seat.js";
import type { SpawnRecord } from "./_spawned.js";

/** Who calls: its engine, its proven seat (server socket and pid, pane) and its agent's process. */
export type LaunchCaller = {
  engine: string;
  server: string;
  serverPid: number;
  pane: string;
  pid: number;
};

/** The caller's pane and processes now, as one scan shows them. */
export type LaunchScan = {
  /** The caller's pane's own process (its pane pid) now, if the server lists the pane. */
  panePid: number | undefined;
  /** The start time now of each pid asked about; absent when it runs no more. */
  starts: ReadonlyMap<number, string>;
  processes: readonly ProcessLink[];
};

export type LaunchMatch =
  | { ok: true; label: string; record: SpawnRecord }
  | { ok: false; reason: "none" | "ambiguous"; labels: string[] };

/** Does `pid` run under `ancestor` (or is it)? Follows parents, never round a loop. */
function descends(processes: readonly ProcessLink[], pid: number, ancestor: number): boolean {
  const parents = new Map(processes.map((row) => [row.pid, row.ppid]));
  const seen = new Set<number>();
  for (let current: number | undefined = pid; current !== undefined && current > 0; ) {
    if (current === ancestor) return true;
    if (seen.has(current)) return false;
    seen.add(current);
    current = parents.get(current);
  }
  return false;
}

/** Is this record the caller's launch, as far as everything it says still holds now? */
function isLaunchOf(record: SpawnRecord, caller: LaunchCaller, scan: LaunchScan): boolean {
  return (
    record.engine === caller.engine &&
    record.server === caller.server &&
    record.serverPid === caller.serverPid &&
    record.pane === caller.pane &&
    scan.panePid === record.pid &&
    scan.starts.get(record.pid) === record.start &&
    descends(scan.processes, caller.pid, record.pid)
  );
}

/** The pids whose start times `launchOf` needs: the records' processes in the caller's pane. */
export function launchPids(records: readonly SpawnRecord[], caller: LaunchCaller): number[] {
  return [
    ...new Set(records.filter((record) => record.pane === caller.pane).map((record) => record.pid)),
  ];
}

/** The one record that is the caller's launch, or why none is. */
export function launchOf(
  records: readonly SpawnRecord[],
  caller: LaunchCaller,
  scan: LaunchScan,
): LaunchMatch {
  const matches = records.filter((record) => isLaunchOf(record, caller, scan));
  const labels = matches.map((record) => record.label);
  const [only] = matches;
  if (only && matches.length === 1) return { ok: true, label: only.label, record: only };
  return { ok: false, reason: matches.length === 0 ? "none" : "ambiguous", labels };
}
