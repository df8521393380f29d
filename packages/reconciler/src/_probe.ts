// Turn one look at the world (each server's panes, one process table) into a probe result: the
// evidence a scan reconciles. A server that did not answer and a table that could not be read
// are carried as such, never as emptiness.
import {
  type AmbiguousPlacement,
  discoverAgents,
  type FoundAgent,
  type PaneFacts,
  type ProcessRow,
  routeOf,
} from "./_discover.js";
import type { EngineRule } from "./_engines.js";
import type { ProbeResult } from "./_tracked.js";

export type Look = {
  backends: readonly { backend: string; panes: readonly PaneFacts[] | "unavailable" }[];
  processes: readonly ProcessRow[] | { error: string };
  exclude?: readonly number[] | undefined;
};

export function probeResult(look: Look, engines: readonly EngineRule[]): ProbeResult {
  if ("error" in look.processes) {
    return { ok: false, error: `the process table could not be read: ${look.processes.error}` };
  }
  const processes = look.processes;
  const agents: FoundAgent[] = [];
  const ambiguous: AmbiguousPlacement[] = [];
  const routes = new Set<string>();
  const unavailable: string[] = [];
  const answered: string[] = [];
  for (const { backend, panes } of look.backends) {
    if (panes === "unavailable") {
      unavailable.push(backend);
      continue;
    }
    answered.push(backend);
    for (const pane of panes) if (!pane.dead) routes.add(routeOf(backend, pane.id));
    const found = discoverAgents({ panes, processes, exclude: look.exclude, backend }, engines);
    agents.push(...found.agents);
    ambiguous.push(...found.ambiguous);
  }
  const alive = new Set(processes.map((row) => `${row.pid}:${row.start}`));
  return { ok: true, agents, ambiguous, routes, unavailable, answered, processes: alive };
}
