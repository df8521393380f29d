// Turn one scan (each server's panes, one process table) into a scan result: the evidence a
// reconcile pass judges. A server that did not answer and a table that could not be read are
// carried as such, never as emptiness.
import {
  type AmbiguousSeat,
  discoverAgents,
  type FoundAgent,
  type PaneFacts,
  type ProcessRow,
  seatKeyOf,
} from "./_discover.js";
import type { EngineRule } from "./_engines.js";
import type { ScanResult } from "./_tracked.js";

export type Scan = {
  servers: readonly { server: string; panes: readonly PaneFacts[] | "unavailable" }[];
  processes: readonly ProcessRow[] | { error: string };
  exclude?: readonly number[] | undefined;
};

export function scanResult(scan: Scan, engines: readonly EngineRule[]): ScanResult {
  if ("error" in scan.processes) {
    return { ok: false, error: `the process table could not be read: ${scan.processes.error}` };
  }
  const processes = scan.processes;
  const agents: FoundAgent[] = [];
  const ambiguous: AmbiguousSeat[] = [];
  const seatKeys = new Set<string>();
  const unavailable: string[] = [];
  const answered: string[] = [];
  for (const { server, panes } of scan.servers) {
    if (panes === "unavailable") {
      unavailable.push(server);
      continue;
    }
    answered.push(server);
    for (const pane of panes) if (!pane.dead) seatKeys.add(seatKeyOf(server, pane.id));
    const found = discoverAgents({ panes, processes, exclude: scan.exclude, server }, engines);
    agents.push(...found.agents);
    ambiguous.push(...found.ambiguous);
  }
  const alive = new Set(processes.map((row) => `${row.pid}:${row.start}`));
  return { ok: true, agents, ambiguous, seatKeys, unavailable, answered, processes: alive };
}
