// A world for the loop's tests: the agents and panes a fake scan reports, as a scan result.
import type { FoundAgent, ScanResult } from "../src/index.js";

export const found = (pane: string, pid: number, start = "1", engine = "pi"): FoundAgent => ({
  engine,
  pid,
  start,
  identity: `${engine}:${pid}:${start}`,
  seatKey: `srv#${pane}`,
  server: "srv",
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

export function scanOf(state: World): ScanResult {
  if (state.tableFails) return { ok: false, error: "EACCES reading /proc" };
  return {
    ok: true,
    agents: state.agents,
    ambiguous: (state.ambiguous ?? []).map((pane) => ({ seatKey: `srv#${pane}` })),
    seatKeys: new Set(state.panes.map((pane) => `srv#${pane}`)),
    unavailable: state.unavailable ?? [],
    unknown: (state.unknown ?? []).map((pane) => `srv#${pane}`),
    processes: new Set([
      ...state.agents.map((agent) => `${agent.pid}:${agent.start}`),
      ...(state.extraProcesses ?? []),
    ]),
  };
}
