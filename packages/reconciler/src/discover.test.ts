import { syntheticSnapshot } from "@muster/test-support";
import { describe, expect, it } from "vitest";
import {
  BUILTIN_ENGINES,
  discoverAgents,
  type EngineRule,
  entrypoint,
  matchEngine,
  type PaneFacts,
  type ProcessRow,
  probeResult,
} from "./index.js";

const CODEX_JS = "/usr/lib/node_modules/@openai/codex/bin/codex.js";
const CODEX_NATIVE =
  "/usr/lib/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";
const PI_JS = "/home/me/.npm/lib/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js";

const engineOf = (argv: string[], name = baseName(argv[0] ?? "")) =>
  matchEngine({ name, argv }, BUILTIN_ENGINES);
function baseName(path: string) {
  return path.slice(path.lastIndexOf("/") + 1).slice(0, 15);
}

describe("matching engines by argv entrypoint", () => {
  it.each([
    ["pi as installed", ["node", PI_JS], "pi"],
    [
      "pi under env with assignments",
      ["/usr/bin/env", "-i", "FOO=1", "BAR=x y", "node", PI_JS, "--name", "a"],
      "pi",
    ],
    ["pi by bin name", ["/home/me/.local/bin/pi"], "pi"],
    ["codex through node", ["node", CODEX_JS, "--yolo"], "codex"],
    ["codex native binary", [CODEX_NATIVE], "codex"],
    [
      "codex through node with options",
      ["node", "--enable-source-maps", "-r", "/tmp/hook.js", CODEX_JS],
      "codex",
    ],
    ["codex through npx", ["npx", "-y", "@openai/codex@latest"], "codex"],
    [
      "codex through npx-cli.js",
      ["node", "/usr/lib/node_modules/npm/bin/npx-cli.js", "@openai/codex"],
      "codex",
    ],
    ["codex through pnpm dlx", ["pnpm", "dlx", "@openai/codex"], "codex"],
    ["codex through bunx", ["bunx", "@openai/codex"], "codex"],
    ["claude by symlink name", ["claude", "--resume"], "claude"],
    [
      "claude.exe by full path",
      ["/usr/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe"],
      "claude",
    ],
    ["claude retitled to its version", ["2.1.332"], "claude"],
    ["gemini through bun", ["bun", "/x/node_modules/@google/gemini-cli/dist/index.js"], "gemini"],
    [
      "gemini through deno run",
      ["deno", "run", "-A", "/x/node_modules/@google/gemini-cli/dist/index.js"],
      "gemini",
    ],
    [
      "aider as a python script",
      ["/usr/bin/python3", "/home/me/.local/bin/aider", "--model", "x"],
      "aider",
    ],
    ["aider as python -m", ["python3.12", "-m", "aider"], "aider"],
    ["opencode", ["/usr/local/bin/opencode"], "opencode"],
    ["amp", ["node", "/x/node_modules/@sourcegraph/amp/dist/main.js"], "amp"],
    ["goose", ["goose", "session"], "goose"],
    ["cursor-agent", ["/home/me/.local/bin/cursor-agent"], "cursor-agent"],
    ["copilot", ["node", "/x/node_modules/@github/copilot/index.js"], "copilot"],
    ["a shell running a script", ["bash", "/home/me/bin/codex.sh"], "codex"],
    [
      "a login shell running a script with options",
      ["/bin/bash", "-l", "--norc", "/home/me/bin/pi"],
      "pi",
    ],
    ["node -e with codex in the code", ["node", "-e", `require("${CODEX_JS}")`], undefined],
    ["bash -c with claude in the code", ["bash", "-c", "claude --resume"], undefined],
    ["bash -lc", ["bash", "-lc", "pi"], undefined],
    ["python -c", ["python3", "-c", "import aider"], undefined],
    ["an interactive shell", ["-bash"], undefined],
    ["vim editing codex.js", ["vim", CODEX_JS], undefined],
    ["a version-like title with more args", ["2.1.332", "--x"], undefined],
    ["node alone", ["node"], undefined],
  ])("%s → %s", (_, argv, engine) => {
    expect(engineOf(argv)).toBe(engine);
  });

  it("with no readable argv, the command name truncated to 15 bytes", () => {
    const rules: EngineRule[] = [{ engine: "long", bins: ["a-very-long-agent-name"] }];
    expect(matchEngine({ name: "a-very-long-age", argv: [] }, rules)).toBe("long");
    expect(matchEngine({ name: "cursor-agent", argv: [] }, BUILTIN_ENGINES)).toBe("cursor-agent");
    expect(matchEngine({ name: "bash", argv: [] }, BUILTIN_ENGINES)).toBeUndefined();
  });

  it("a caller's own rules are data", () => {
    const rules = [
      ...BUILTIN_ENGINES,
      { engine: "mine", bins: ["my-agent"], paths: ["/my-agent-pkg/"] },
    ];
    expect(matchEngine({ name: "node", argv: ["node", "/opt/my-agent-pkg/main.js"] }, rules)).toBe(
      "mine",
    );
    expect(matchEngine({ name: "my-agent", argv: ["my-agent"] }, rules)).toBe("mine");
  });

  it.each([
    [["env", "A=1", "node", "x.js"], { kind: "path", path: "x.js" }],
    [["node", "--", "x.js"], { kind: "path", path: "x.js" }],
    [["npx", "--package=@a/b@1", "b"], { kind: "package", name: "@a/b" }],
    [["npx", "-c", "codex"], { kind: "inline" }],
    [["env"], { kind: "none" }],
  ] as const)("entrypoint(%j)", (argv, expected) => {
    expect(entrypoint(argv)).toEqual(expected);
  });
});

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
      { panes, processes, backend: "/tmp/tmux-0/default" },
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
        route: "/tmp/tmux-0/default#%3",
        pane: "%3",
        candidates: [
          { engine: "claude", pid: 31 },
          { engine: "gemini", pid: 32 },
        ],
      },
    ]);
    expect(found.agents[0]).toMatchObject({
      identity: "codex:11:100",
      route: "/tmp/tmux-0/default#%1",
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

describe("probeResult", () => {
  it("carries an unreadable table and an unanswering server as such, never as emptiness", () => {
    expect(
      probeResult({ backends: [], processes: { error: "EACCES" } }, BUILTIN_ENGINES),
    ).toMatchObject({ ok: false });
    const result = probeResult(
      {
        backends: [
          { backend: "a", panes: [pane(1, 10), pane(2, 99, { dead: true })] },
          { backend: "b", panes: "unavailable" },
        ],
        processes: [proc(10, 1, ["claude"])],
      },
      BUILTIN_ENGINES,
    );
    expect(result).toMatchObject({ ok: true, unavailable: ["b"], agents: [{ route: "a#%1" }] });
    expect(result.ok && [...result.routes]).toEqual(["a#%1"]);
    expect(result.ok && result.processes.has("10:100")).toBe(true);
  });
});
