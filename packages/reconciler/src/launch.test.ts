// One row per engine: the command line its launch builds.
import { describe, expect, it, test } from "vitest";
import { BUILTIN_LAUNCHES } from "./_launch.js";
import {
  BUILTIN_ENGINES,
  findSpawned,
  launchCommand,
  matchEngine,
  namesSession,
  quitSignal,
  resumesSession,
} from "./index.js";

const TASK = "fix the flaky test; then run `pnpm test`";

describe("the launch table: one row per engine", () => {
  it.each<[string, string[], boolean]>([
    ["pi", ["pi", "--model", "x", "--", TASK], true],
    ["codex", ["codex", "--model", "x", "--", TASK], true],
    ["claude", ["claude", "--model", "x", "--", TASK], true],
    ["gemini", ["gemini", "--model", "x", `--prompt-interactive=${TASK}`], true],
    ["opencode", ["opencode", "--model", "x"], false],
    ["aider", ["aider", "--model", "x"], false],
  ])("%s", (engine, argv, onCommandLine) => {
    const result = launchCommand(engine, { task: TASK, extra: ["--model", "x"] });
    expect(result).toEqual({
      ok: true,
      launch: { engine, argv, taskOnCommandLine: onCommandLine, quit: "SIGTERM" },
    });
  });

  it("the quit signal is the row's; an engine with no row gets SIGTERM", () => {
    const rules = [{ engine: "tui", command: ["tui"], quit: "SIGINT" as const }];
    expect(quitSignal("pi")).toBe("SIGTERM");
    expect(quitSignal("TUI", rules)).toBe("SIGINT");
    expect(quitSignal("unknown", rules)).toBe("SIGTERM");
  });

  it("every row has its test row above, and every launch is recognised by discovery", () => {
    expect(BUILTIN_LAUNCHES.map((rule) => rule.engine)).toEqual([
      "pi",
      "codex",
      "claude",
      "gemini",
      "opencode",
      "aider",
    ]);
    for (const rule of BUILTIN_LAUNCHES) {
      const argv = [...rule.command];
      expect(matchEngine({ name: argv[0]!, argv }, BUILTIN_ENGINES)).toBe(rule.engine);
    }
  });
});

describe("tasks and commands", () => {
  it.each<[string, string, string[]]>([
    ["a task that starts with a dash is not an option", "-rf", ["claude", "--", "-rf"]],
    ["a pi task that names a file goes by mail only", "@notes.md", ["pi"]],
    ["no task, no task arguments", "", ["claude"]],
    // Any -c or --profile runs Codex 0.171 without its app-server daemon (slow wakes): the grace
    // is a key muster install codex writes, and the row is plain codex.
    ["a Codex with no task is plain codex, no -c and no --profile", "", ["codex"]],
  ])("%s", (_, task, argv) => {
    const engine = argv[0]!;
    const result = launchCommand(engine, { task });
    expect(result.ok && result.launch.argv).toEqual(argv);
  });

  it("engine names compare case-insensitively", () => {
    expect(launchCommand("Claude")).toMatchObject({ ok: true, launch: { engine: "claude" } });
  });

  it("an engine with no row: refused with the fix, or started by the user's command", () => {
    expect(launchCommand("goose")).toMatchObject({ ok: false, reason: "unknown-engine" });
    expect(launchCommand("goose", { command: ["goose", "session"], task: TASK })).toEqual({
      ok: true,
      launch: {
        engine: "goose",
        argv: ["goose", "session"],
        taskOnCommandLine: false,
        quit: "SIGTERM",
      },
    });
    expect(launchCommand("goose", { command: [""] })).toMatchObject({ reason: "bad-command" });
  });
});

describe("extra arguments that would cost a spawned Codex its app-server daemon are refused", () => {
  // Measured one by one on a real Codex 0.171.0 (daemon or not, after a turn): -m, -s, -a, -C,
  // --add-dir, --no-alt-screen and --dangerously-bypass-approvals-and-sandbox keep it; -c,
  // --search, --approve-for-me, --strict-config and --no-daemon do not.
  it.each<[string[], string | undefined]>([
    [["-c", "model_reasoning_effort=low"], "-c"],
    [["--config", "model=o3"], "--config"],
    [["--model", "o4-mini", "-c", "x=1"], "-c"],
    [["-p", "fast"], "-p"],
    [["--profile=fast"], "--profile=fast"],
    [["--search"], "--search"],
    [["--approve-for-me"], "--approve-for-me"],
    [["--strict-config"], "--strict-config"],
    [["--no-daemon"], "--no-daemon"],
    [["--enable", "web_search"], "--enable"],
    [["--no-alt-screen=1"], "--no-alt-screen=1"],
    [["--some-future-flag"], "--some-future-flag"],
    [["-m", "o4-mini", "--sandbox", "workspace-write", "-a", "never"], undefined],
    [["--model=o4-mini", "-C", "/repo", "--add-dir", "/tmp", "--no-alt-screen"], undefined],
    // A value is not an argument: `-m -c` names a model called "-c".
    [["-m", "-c"], undefined],
    [["--dangerously-bypass-approvals-and-sandbox", "--", "-c"], undefined],
  ])("%j", (extra, refused) => {
    const result = launchCommand("codex", { extra, task: TASK });
    if (refused === undefined) {
      expect(result).toMatchObject({ ok: true, launch: { argv: ["codex", ...extra, "--", TASK] } });
      return;
    }
    expect(result).toMatchObject({ ok: false, reason: "loses-daemon" });
    expect(!result.ok && result.error).toContain(`"${refused}"`);
  });

  it("the user's own command line is theirs: not checked", () => {
    const result = launchCommand("codex", {
      command: ["codex", "-c", "x=1"],
      extra: ["-c", "y=2"],
    });
    expect(result.ok).toBe(true);
  });

  it("other engines take any extra argument", () => {
    expect(launchCommand("claude", { extra: ["-c"] }).ok).toBe(true);
  });
});

describe("a launch refused: the error says what happened, the fix beside it what to do", () => {
  it.each([
    ["unknown-engine", launchCommand("goose")],
    ["bad-command", launchCommand("goose", { command: [""] })],
    ["loses-daemon", launchCommand("codex", { extra: ["-c", "x=1"] })],
  ] as const)("%s", (reason, result) => {
    if (result.ok) throw new Error("expected a refusal");
    expect(result.reason).toBe(reason);
    expect(result.fix.length).toBeGreaterThan(10);
    expect(result.error).not.toContain(result.fix);
    // Neither names a flag of a command line: the MCP server and the pi extension show them too.
    expect(result.error).not.toMatch(/(^|\s)--[a-z]/);
    expect(result.fix).not.toMatch(/(^|\s)--[a-z]/);
  });
});

describe("findSpawned: the launched agent as a scan sees it", () => {
  const agent = (seatKey: string, engine: string) => ({
    engine,
    pid: 10,
    start: "1",
    identity: `${engine}:10:1`,
    seatKey,
    server: "srv",
    pane: seatKey.slice(4),
    session: "$0",
    sessionName: "main",
    cwd: "/repo",
    argv: [engine],
    depth: 0,
  });
  const scan = (agents: ReturnType<typeof agent>[], ambiguous: string[] = []) => ({
    ok: true as const,
    agents,
    ambiguous: ambiguous.map((seatKey) => ({ seatKey })),
    seatKeys: new Set(["srv#%7"]),
    unavailable: [],
    processes: new Set<string>(),
  });
  it.each<[string, Parameters<typeof findSpawned>[0], string]>([
    ["the engine in the new pane", scan([agent("srv#%7", "pi")]), "ok"],
    ["not started yet", scan([agent("srv#%3", "pi")]), "not-yet"],
    ["another engine in the pane", scan([agent("srv#%7", "codex")]), "other-engine"],
    ["two agents side by side", scan([], ["srv#%7"]), "ambiguous"],
    ["no process table", { ok: false, error: "EACCES" }, "no-evidence"],
  ])("%s", (_, result, expected) => {
    const found = findSpawned(result, { seatKey: "srv#%7", engine: "pi" });
    expect(found.ok ? "ok" : found.reason).toBe(expected);
  });
});

describe("engine sessions: started under an id muster chose, or resumed", () => {
  const ID = "019b0000-aaaa-7bbb-8ccc-ddddeeeeffff";
  test.each([
    ["pi", false, ["pi", "--session-id", ID, "--model", "m", "--", "task"]],
    ["pi", true, ["pi", "--session-id", ID, "--model", "m"]],
    ["claude", false, ["claude", "--session-id", ID, "--model", "m", "--", "task"]],
    ["claude", true, ["claude", "--resume", ID, "--model", "m"]],
    // Codex joins only at a team tool's call: its resume's first prompt has it rejoin.
    [
      "codex",
      true,
      ["codex", "resume", ID, "--model", "m", "--", expect.stringContaining("team_inbox")],
    ],
  ])(
    "%s (resume: %s): the session first, then the engine's own arguments",
    (engine, resume, argv) => {
      const launched = launchCommand(engine, {
        task: "task",
        extra: ["--model", "m"],
        session: { id: ID, resume },
      });
      expect(launched).toMatchObject({ ok: true, launch: { argv, session: { id: ID, resume } } });
    },
  );

  test.each([
    ["codex", { id: ID, resume: false }, "Codex names its thread at its first turn"],
    ["aider", { id: ID, resume: true }, "no resume"],
    ["pi", { id: "--extension=x.ts", resume: true }, "an option for an id"],
    ["pi", { id: "../../x", resume: false }, "a path for an id"],
  ])("%s %j is refused: %s", (engine, session) => {
    expect(launchCommand(engine, { session })).toMatchObject({ ok: false, reason: "no-session" });
  });

  it("says which engines it names and resumes", () => {
    expect(["pi", "codex", "claude", "aider"].map((engine) => namesSession(engine))).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(["pi", "codex", "claude", "aider"].map((engine) => resumesSession(engine))).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});
