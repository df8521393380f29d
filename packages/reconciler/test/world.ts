// A world for the loop's tests: the agents and panes a fake probe reports, as a probe result.
import type { FoundAgent, ProbeResult } from "../src/index.js";

export const found = (pane: string, pid: number, start = "1", engine = "pi"): FoundAgent => ({
  engine,
  pid,
  start,
  identity: `${engine}:${pid}:${start}`,
  route: `srv#${pane}`,
  backend: "srv",
  pane,
  session: "$0",
  sessionName: "main",
  cwd: "/repo",
  argv: [engine],
  depth: 1,
});

export type World = {
  agents: FoundAgent[];
  panes: string[];
  ambiguous?: string[];
  unknown?: string[];
  unavailable?: string[];
  extraProcesses?: string[];
  tableFails?: boolean;
};

export function probeOf(state: World): ProbeResult {
  if (state.tableFails) return { ok: false, error: "EACCES reading /proc" };
  return {
    ok: true,
    agents: state.agents,
    ambiguous: (state.ambiguous ?? []).map((pane) => ({ route: `srv#${pane}` })),
    routes: new Set(state.panes.map((pane) => `srv#${pane}`)),
    unavailable: state.unavailable ?? [],
    unknown: (state.unknown ?? []).map((pane) => `srv#${pane}`),
    processes: new Set([
      ...state.agents.map((agent) => `${agent.pid}:${agent.start}`),
      ...(state.extraProcesses ?? []),
    ]),
  };
}
