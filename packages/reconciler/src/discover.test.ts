import { syntheticSnapshot } from "@muster/test-support";
import { describe, expect, it } from "vitest";
import {
  BUILTIN_ENGINES,
  discoverAgents,
  type PaneFacts,
  type ProcessRow,
  scanResult,
} from "./index.js";

const CODEX_JS = "/usr/lib/node_modules/@openai/codex/bin/codex.js";
const CODEX_NATIVE =
  "/usr/lib/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";
const PI_JS = "/home/me/.npm/lib/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js";

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1).slice(0, 15);

const pane = (id: number, pid: number, overrides: Partial<PaneFacts> = {}): PaneFacts => ({
  id: `%${id}`,
  pid,
  dead: false,
  path: `/work/${id}`,
  sessionId: "$0",
  sessionName: "main",
  ...overrides,
});
const proc = (pid: number, ppid: number, argv: string[], start = "100"): ProcessRow => ({
  pid,
  ppid,
  start,
  name: baseName(argv[0] ?? ""),
  argv,
});

describe("discoverAgents", () => {
  const processes = [
    proc(1, 0, ["/sbin/init"]),
    // %1: bash → node codex.js → codex (native): the shallowest owns the pane.
    proc(10, 1, ["-bash"]),
    proc(11, 10, ["node", CODEX_JS]),
    proc(12, 11, [CODEX_NATIVE]),
    // %2: pi, which started a sub-agent (another pi) under it.
    proc(20, 1, ["bash"]),
    proc(21, 20, ["node", PI_JS]),
    proc(22, 21, ["node", PI_JS, "--mode", "rpc"]),
    // %3: two agents side by side at the same depth.
    proc(30, 1, ["bash"]),
    proc(31, 30, ["claude"]),
    proc(32, 30, ["gemini"]),
    // %4: only a shell.
    proc(40, 1, ["bash"]),
    proc(41, 40, ["vim", "notes"]),
    // the Codex daemon, in no pane.
    proc(50, 1, ["/root/.codex/packages/app-server-daemon/releases/1/bin/codex", "app-server"]),
    // %5: the pane's own process is the agent.
    proc(60, 1, ["claude"]),
  ];
  const panes = [
    pane(1, 10),
    pane(2, 20),
    pane(3, 30),
    pane(4, 40),
    pane(5, 60),
    pane(6, 99, { dead: true }),
  ];

  it("finds one agent per pane, the shallowest; ties are ambiguous; daemons outside panes are not agents", () => {
    const found = discoverAgents(
      { panes, processes, server: "/tmp/tmux-0/default" },
      BUILTIN_ENGINES,
    );
    expect(found.agents.map((agent) => [agent.pane, agent.engine, agent.pid, agent.depth])).toEqual(
      [
        ["%1", "codex", 11, 1],
        ["%2", "pi", 21, 1],
        ["%5", "claude", 60, 0],
      ],
    );
    expect(found.ambiguous).toEqual([
      {
        seatKey: "/tmp/tmux-0/default#%3",
        pane: "%3",
        candidates: [
          { engine: "claude", pid: 31 },
          { engine: "gemini", pid: 32 },
        ],
      },
    ]);
    expect(found.agents[0]).toMatchObject({
      identity: "codex:11:100",
      seatKey: "/tmp/tmux-0/default#%1",
      cwd: "/work/1",
      session: "$0",
      sessionName: "main",
      argv: ["node", CODEX_JS],
    });
  });

  it("excludes the scanner's own processes", () => {
    const found = discoverAgents({ panes, processes, exclude: [11] }, BUILTIN_ENGINES);
    expect(found.agents.find((agent) => agent.pane === "%1")).toMatchObject({ pid: 12, depth: 2 });
  });

  it("a reused pid is a different agent", () => {
    const before = discoverAgents(
      { panes: [pane(5, 60)], processes: [proc(60, 1, ["claude"], "100")] },
      BUILTIN_ENGINES,
    );
    const after = discoverAgents(
      { panes: [pane(5, 60)], processes: [proc(60, 1, ["claude"], "999")] },
      BUILTIN_ENGINES,
    );
    expect(before.agents[0]?.identity).not.toBe(after.agents[0]?.identity);
  });

  it("is linear: 1,000 panes × 10,000 processes visits each process once", () => {
    const { panes: manyPanes, processes: many } = syntheticSnapshot(1000);
    let reads = 0;
    const counted = many.map((row) => ({
      ...row,
      get argv() {
        reads += 1;
        return row.argv;
      },
    }));
    const found = discoverAgents({ panes: manyPanes, processes: counted }, BUILTIN_ENGINES);
    expect(found.agents).toHaveLength(500);
    // Each process is looked at once at most: no per-pane scan of the whole table.
    expect(reads).toBeLessThanOrEqual(many.length + found.agents.length);
  });
});

describe("scanResult", () => {
  it("carries an unreadable table and an unanswering server as such, never as emptiness", () => {
    expect(
      scanResult({ servers: [], processes: { error: "EACCES" } }, BUILTIN_ENGINES),
    ).toMatchObject({ ok: false });
    const result = scanResult(
      {
        servers: [
          { server: "a", panes: [pane(1, 10), pane(2, 99, { dead: true })] },
          { server: "b", panes: "unavailable" },
        ],
        processes: [proc(10, 1, ["claude"])],
      },
      BUILTIN_ENGINES,
    );
    expect(result).toMatchObject({ ok: true, unavailable: ["b"], agents: [{ seatKey: "a#%1" }] });
    expect(result.ok && [...result.seatKeys]).toEqual(["a#%1"]);
    expect(result.ok && result.processes.has("10:100")).toBe(true);
  });
});
