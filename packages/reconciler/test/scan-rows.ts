// Rows for the scan's table tests: a tracked agent, a found one, a scan result, and one call of
// reconcileScan summarised as keys and pids.
import { expect } from "vitest";
import { emptyMemory, type Miss, reconcileScan, type ScanInput } from "../src/_scan.js";
import type { FoundAgent, ScanResult, TrackedAgent } from "../src/index.js";

export const found = (pane: string, pid: number, engine = "pi", server = "srv"): FoundAgent => ({
  engine,
  pid,
  start: "1",
  identity: `${engine}:${pid}:1`,
  seatKey: `${server}#${pane}`,
  server,
  pane,
  session: "$0",
  sessionName: "main",
  cwd: "/repo",
  argv: [engine],
  depth: 1,
});

/** A tracked agent `key` at `pane`, last seen as process `pid` (none: never seen). */
export const tracked = (
  key: string,
  pane: string,
  pid: number | undefined,
  more: Partial<TrackedAgent> = {},
): TrackedAgent => ({
  key,
  engine: "pi",
  seatKey: `srv#${pane}`,
  server: "srv",
  identity: pid === undefined ? undefined : `pi:${pid}:1`,
  bound: false,
  state: "live",
  generation: 0,
  ...more,
});

export const scan = (
  agents: FoundAgent[],
  panes: string[],
  more: Partial<ScanResult & { ok: true }> = {},
): ScanResult => ({
  ok: true,
  agents,
  ambiguous: [],
  seatKeys: new Set(panes.map((pane) => `srv#${pane}`)),
  unavailable: [],
  processes: new Set(agents.map((agent) => `${agent.pid}:${agent.start}`)),
  ...more,
});

export type Row = {
  /** What the registry held when the scan started; `after` when not given. */
  before?: TrackedAgent[];
  after: TrackedAgent[];
  result: ScanResult;
  held?: string[];
  misses?: [string, Miss][];
  suppressed?: string[];
  fresh?: string[];
  expected: {
    observed?: string[];
    dormant?: string[];
    removed?: string[];
    discovered?: number[];
    unjudged?: string[];
  };
};

export function run(row: Row) {
  const memory = emptyMemory();
  const input: ScanInput = {
    memory: {
      ...memory,
      misses: new Map(row.misses ?? []),
      suppressed: new Set(row.suppressed ?? []),
    },
    result: row.result,
    before: row.before ?? row.after,
    after: row.after,
    held: new Set(row.held ?? []),
    freshSuppressions: new Set(row.fresh ?? []),
    misses: 2,
  };
  return reconcileScan(input);
}

function summary(row: Row) {
  const outcome = run(row);
  return {
    observed: outcome.observed.map(({ tracked, agent }) => `${tracked.key}=${agent.pid}`),
    dormant: outcome.dormant.map((agent) => agent.key),
    removed: outcome.removed.map((agent) => agent.key),
    discovered: outcome.discovered.map((agent) => agent.pid),
    unjudged: outcome.unjudged,
  };
}

export const expectRow = (row: Row) =>
  expect(summary(row)).toEqual({
    observed: [],
    dormant: [],
    removed: [],
    discovered: [],
    unjudged: [],
    ...row.expected,
  });

export const oneMiss = (key: string, against: string): [string, Miss] => [
  key,
  { against, dormant: 1, gone: 1 },
];
