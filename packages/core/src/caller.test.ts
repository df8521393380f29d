import { describe, expect, it } from "vitest";
import {
  callerId,
  codexMemberId,
  codexThreadOf,
  errorLine,
  isSessionId,
  memberIdOf,
  memberOfAgent,
  sandboxedMemberId,
} from "./index.js";
import { type CallerProcess, findCaller } from "./internal.js";

const row = (pid: number, ppid: number, name: string, argv: string[] = [name]): CallerProcess => ({
  pid,
  ppid,
  start: `${pid}00`,
  name,
  argv,
});
const recognise = (process: CallerProcess) =>
  process.name === "codex" ? "codex" : process.argv.includes("claude") ? "claude" : undefined;

describe("findCaller", () => {
  const table = [
    row(1, 0, "init"),
    row(10, 1, "tmux"),
    row(20, 10, "bash"),
    row(30, 20, "codex"),
    row(40, 30, "bash"),
    row(50, 40, "muster"),
    row(60, 20, "bash"),
  ];

  it("walks up from the command's parent to the nearest recognised agent", () => {
    expect(findCaller(table, 40, recognise)).toEqual({
      ok: true,
      pid: 30,
      start: "3000",
      agent: "codex",
      engine: "codex",
      via: ["bash"],
    });
  });

  it("with no agent above, the interactive shell that is the parent is the caller", () => {
    expect(findCaller(table, 60, recognise)).toEqual({
      ok: true,
      pid: 60,
      start: "6000",
      agent: "bash",
      engine: undefined,
      via: [],
    });
  });

  it("a parent that is not in the table is no caller", () => {
    const found = findCaller(table, 999, recognise);
    expect(found).toMatchObject({ ok: false, reason: "no-caller" });
    expect(found.ok ? "" : errorLine(found)).toBe(
      "process 999, this command's parent, is not in the process table; run it from an agent or a shell, or name the member by its id",
    );
  });

  it("a loop in the parent links ends the walk", () => {
    const loop = [row(70, 80, "bash"), row(80, 70, "sh")];
    expect(findCaller(loop, 70, recognise)).toMatchObject({ pid: 70, engine: undefined });
  });

  it("pid 1 is never the caller's agent, whatever it is called", () => {
    expect(findCaller([row(1, 0, "codex"), row(5, 1, "sh")], 5, recognise)).toMatchObject({
      pid: 5,
      engine: undefined,
    });
  });

  it("the member id names the engine, the pid and the start time", () => {
    expect(callerId({ pid: 30, start: "3000", agent: "codex", engine: "codex" })).toBe(
      "codex-30-3000",
    );
    expect(callerId({ pid: 60, start: "6000", agent: "bash", engine: undefined })).toBe(
      "shell-60-6000",
    );
  });
});

describe("findCaller passes through wrappers", () => {
  const init = row(1, 0, "systemd", ["/sbin/init"]);
  const server = row(10, 1, "tmux: server", ["tmux", "new-session", "-d"]);
  const bash = row(20, 10, "bash", ["-bash"]);
  const codex = row(30, 20, "codex", ["node", "/lib/node_modules/@openai/codex/bin/codex.js"]);

  it.each([
    [
      "pnpm muster join from an interactive shell: through sh -c and pnpm to bash",
      [
        init,
        server,
        bash,
        row(40, 20, "pnpm", ["pnpm", "muster", "join", "tester"]),
        row(41, 40, "sh", ["/usr/bin/sh", "-c", "node tools/src/muster.ts join tester"]),
      ],
      41,
      { ok: true, pid: 20, agent: "bash", engine: undefined, via: ["sh -c", "pnpm"] },
    ],
    [
      "npx, whose title `npm exec` replaces its argv, from zsh",
      [
        init,
        server,
        row(20, 10, "zsh", ["/usr/bin/zsh"]),
        row(50, 20, "npm exec", ["npm exec"]),
        row(51, 50, "sh", ["sh", "-c", "muster join x"]),
      ],
      51,
      { ok: true, pid: 20, agent: "zsh", via: ["sh -c", "npm"] },
    ],
    [
      "node running npm-cli.js exec, then env",
      [
        init,
        server,
        bash,
        row(60, 20, "node", ["node", "/usr/lib/node_modules/npm/bin/npm-cli.js", "exec", "x"]),
        row(61, 60, "env", ["env", "FOO=1", "muster"]),
      ],
      61,
      { ok: true, pid: 20, agent: "bash", via: ["env", "npm-cli"] },
    ],
    [
      "an agent above wrappers wins: Codex runs pnpm muster",
      [
        init,
        server,
        bash,
        codex,
        row(70, 30, "pnpm", ["pnpm", "muster", "join", "x"]),
        row(71, 70, "sh", ["sh", "-c", "node m.js"]),
      ],
      71,
      { ok: true, pid: 30, agent: "codex", engine: "codex", via: ["sh -c", "pnpm"] },
    ],
    [
      "a shell running several commands outlives muster: it is the caller",
      [init, server, bash, row(85, 20, "sh", ["sh", "-c", "muster join x && exec sleep 600"])],
      85,
      { ok: true, pid: 85, agent: "sh", via: [] },
    ],
    [
      "a program that ran the command itself is the caller",
      [init, server, bash, row(80, 20, "python3", ["python3", "bot.py"])],
      80,
      { ok: true, pid: 80, agent: "python3", via: [] },
    ],
    [
      "a shell running a script is a wrapper; the shell that typed it is the caller",
      [init, server, bash, row(97, 20, "bash", ["bash", "./deploy.sh"])],
      97,
      { ok: true, pid: 20, via: ["bash -c"] },
    ],
  ])("%s", (_rule, rows, from, expected) => {
    expect(findCaller(rows, from, recognise)).toMatchObject(expected);
  });

  it.each([
    [
      "wrappers straight under the tmux server: nothing that stays",
      [
        init,
        server,
        row(90, 10, "sh", ["sh", "-c", "pnpm muster join x"]),
        row(91, 90, "pnpm", ["pnpm", "muster", "join", "x"]),
      ],
      91,
      /^no agent or interactive shell runs this command: above pnpm < sh -c is tmux \(pid 10\); run it from an agent or a shell, or name the member by its id$/,
    ],
    [
      "wrappers re-parented to init when their shell ended",
      [init, row(92, 1, "sh", ["sh", "-c", "muster join x"])],
      92,
      /above sh -c is init \(pid 1\)/,
    ],
    [
      "a parent loop of wrappers in a hostile table",
      [row(95, 96, "sh", ["sh", "-c", "x"]), row(96, 95, "pnpm", ["pnpm", "x"])],
      95,
      /only sh -c < pnpm above it/,
    ],
  ])("refused: %s", (_rule, rows, from, pattern) => {
    const result = findCaller(rows, from, recognise);
    expect(result).toMatchObject({ ok: false, reason: "no-caller" });
    expect(result.ok ? "" : errorLine(result)).toMatch(pattern);
    expect(result.ok ? "" : result.error).not.toMatch(/--[a-z]|; /);
  });
});

describe("memberOfAgent", () => {
  const seat = (pane: string, server = "/tmp/s") => ({ server, pane });
  const members = [
    { label: "gone-one", state: "gone" as const, pid: 100, seat: seat("%1") },
    { label: "by-seat", state: "live" as const, pid: 200, seat: seat("%2") },
    { label: "by-pid", state: "live" as const, pid: 300, seat: seat("%9") },
    { label: "elsewhere", state: "live" as const, pid: 400, seat: seat("%4", "/tmp/other") },
  ];

  it.each([
    [
      "a live member whose process the agent is",
      { pid: 300, pane: "%2", server: "/tmp/s" },
      "by-pid",
    ],
    [
      "else the live member seated in the agent's pane",
      { pid: 999, pane: "%2", server: "/tmp/s" },
      "by-seat",
    ],
    [
      "a member that is not live names nothing",
      { pid: 100, pane: "%1", server: "/tmp/s" },
      undefined,
    ],
    [
      "the same pane id on another server is another pane",
      { pid: 999, pane: "%4", server: "/tmp/s" },
      undefined,
    ],
  ])("%s", (_rule, agent, label) => {
    expect(memberOfAgent(agent, members)?.label).toBe(label);
  });

  it("an agent whose server is not known is matched by its process only", () => {
    expect(memberOfAgent({ pid: 999, pane: "%2", server: undefined }, members)).toBeUndefined();
    expect(memberOfAgent({ pid: 200, pane: "%7", server: undefined }, members)?.label).toBe(
      "by-seat",
    );
  });

  it("a member without a seat is matched by its process only", () => {
    const unseated = [{ label: "a", state: "live" as const, pid: 5, seat: null }];
    expect(memberOfAgent({ pid: 5, pane: "%1", server: "/tmp/s" }, unseated)?.label).toBe("a");
    expect(memberOfAgent({ pid: 6, pane: "%1", server: "/tmp/s" }, unseated)).toBeUndefined();
  });
});

describe("one agent, one member id, whatever door it comes through", () => {
  const THREAD = "01a22ae4-26be-7480-acf3-78282d1c9f00";
  const SESSION = "01934a2b-7c3d-7e4f-8a9b-0c1d2e3f4a5b";
  const codex = { pid: 30, start: "3000", agent: "codex", engine: "codex" };
  const pi = { pid: 40, start: "4000", agent: "pi", engine: "pi" };
  const claude = { pid: 50, start: "5000", agent: "claude", engine: "claude" };
  const shell = { pid: 60, start: "6000", agent: "bash", engine: undefined };
  // What each engine's own door calls its member: Codex's MCP server `codex-<thread>` (from the
  // call's thread), pi's extension the session id, Claude Code's hooks and server its process.
  it.each([
    ["Codex's shell tool (CODEX_THREAD_ID)", codex, { CODEX_THREAD_ID: THREAD }, `codex-${THREAD}`],
    ["pi's bash tool (PI_SESSION_ID)", pi, { PI_SESSION_ID: SESSION }, SESSION],
    [
      "Claude Code's Bash tool: its process",
      claude,
      { CLAUDE_CODE_SESSION_ID: SESSION },
      "claude-50-5000",
    ],
    ["a Codex with no thread named: its process", codex, {}, "codex-30-3000"],
    [
      "a shell: its process, whatever it inherited",
      shell,
      { PI_SESSION_ID: SESSION },
      "shell-60-6000",
    ],
    [
      "another engine's session variable is not this engine's",
      codex,
      { PI_SESSION_ID: SESSION },
      "codex-30-3000",
    ],
    [
      "pi inside Codex's shell: pi's own session",
      pi,
      { CODEX_THREAD_ID: THREAD, PI_SESSION_ID: SESSION },
      SESSION,
    ],
    [
      "a thread id that is a path is no session",
      codex,
      { CODEX_THREAD_ID: "../../sessions/x" },
      "codex-30-3000",
    ],
    ["an empty session is none", pi, { PI_SESSION_ID: "" }, "pi-40-4000"],
  ])("%s", (_door, caller, env, id) => {
    expect(memberIdOf(caller, env)).toEqual(id);
  });
});

describe("a command in Codex's sandbox (its shell tool, Codex 0.171.0 on Linux)", () => {
  const THREAD = "01a22ae4-26be-7480-acf3-78282d1c9f00";
  // The sandbox runs the command as pid 1 of a pid namespace of its own: Codex is out of sight.
  const sandboxed = [
    row(1, 0, "codex-linux-san", ["/opt/codex/codex-linux-sandbox", "--sandbox-policy", "{}"]),
    row(2, 1, "bash", ["/bin/bash", "-lc", "muster roster"]),
  ];
  const found = findCaller(sandboxed, 2, recognise);

  it("is no caller by ancestry: refused as sandboxed, saying how Codex joins", () => {
    expect(found).toMatchObject({ ok: false, reason: "sandboxed", engine: "codex" });
    expect(found.ok ? "" : errorLine(found)).toBe(
      "this command runs in codex's sandbox, where muster cannot see codex itself to seat it or prove it alive; let codex join through muster's team tools first (any team_ tool call joins its session); commands from its shell then act as that member",
    );
  });

  it.each<[string, Record<string, string>, string | undefined]>([
    [
      "acts as its thread's member, the one its MCP server joined",
      { CODEX_THREAD_ID: THREAD },
      `codex-${THREAD}`,
    ],
    ["no thread named: no member", {}, undefined],
    ["a thread id that is a path names none", { CODEX_THREAD_ID: "../x" }, undefined],
    ["pi's session is not Codex's", { PI_SESSION_ID: THREAD }, undefined],
  ])("%s", (_, env, id) => {
    expect(sandboxedMemberId(found, env)).toBe(id);
  });

  it("another pid 1, or a sandbox that is not pid 1, is no sandboxed caller", () => {
    const init = findCaller([row(1, 0, "init"), row(2, 1, "sh", ["sh", "-c", "x"])], 2, recognise);
    expect(init).toMatchObject({ ok: false, reason: "no-caller" });
    expect(sandboxedMemberId(init, { CODEX_THREAD_ID: THREAD })).toBeUndefined();
    const nested = [
      row(1, 0, "init"),
      row(7, 1, "codex-linux-san", ["codex-linux-sandbox"]),
      row(8, 7, "bash", ["bash", "-lc", "muster roster"]),
    ];
    expect(findCaller(nested, 8, recognise)).toMatchObject({ ok: true, pid: 7, engine: undefined });
  });
});

describe("under git, the caller is whoever ran git (its hooks, hook managers and aliases are git's)", () => {
  const THREAD = "01a22ae4-26be-7480-acf3-78282d1c9f00";
  const byName = (process: CallerProcess) =>
    ["pi", "claude", "codex"].find((engine) => process.argv[0] === engine);
  const init = row(1, 0, "systemd", ["/sbin/init"]);
  const server = row(10, 1, "tmux: server", ["tmux", "new-session", "-d"]);
  const person = row(20, 10, "bash", ["-bash"]);
  const commit = (pid: number, ppid: number) =>
    row(pid, ppid, "git", ["git", "commit", "-qm", "parser"]);
  const hook = (pid: number, ppid: number, file = ".git/hooks/pre-commit") =>
    row(pid, ppid, "pre-commit", ["/bin/sh", file]);
  // Each chain ends in the process `muster guard` runs under (its parent), the last row.
  it.each<[string, CallerProcess[], Record<string, unknown>]>([
    [
      "the person's shell: git, then muster's hook in .git/hooks",
      [init, server, person, commit(30, 20), hook(31, 30)],
      { ok: true, pid: 20, agent: "bash", engine: undefined },
    ],
    [
      "husky 9: its .husky/_/pre-commit sources h, which runs sh -e .husky/pre-commit, then npx",
      [
        init,
        server,
        person,
        commit(30, 20),
        hook(31, 30, ".husky/_/pre-commit"),
        row(32, 31, "sh", ["sh", "-e", ".husky/pre-commit"]),
        row(33, 32, "npm exec", ["npm exec muster guard"]),
        row(34, 33, "sh", ["sh", "-c", "muster guard"]),
      ],
      { ok: true, pid: 20, agent: "bash" },
    ],
    [
      "lefthook 2: a program of its own between git's hook and the command",
      [
        init,
        server,
        person,
        commit(30, 20),
        hook(31, 30),
        row(32, 31, "lefthook", ["/x/lefthook-linux-x64/bin/lefthook", "run", "pre-commit"]),
        row(33, 32, "sh", ["sh", "-c", "muster guard"]),
      ],
      { ok: true, pid: 20, agent: "bash" },
    ],
    [
      "pre-commit (python): its hook runs python, which runs the check",
      [
        init,
        server,
        person,
        commit(30, 20),
        row(31, 30, "python3", ["/usr/bin/python3", "-mpre_commit", "hook-impl"]),
      ],
      { ok: true, pid: 20, agent: "bash" },
    ],
    [
      "a commit inside git rebase --exec: the outermost git's caller",
      [
        init,
        server,
        person,
        row(30, 20, "git", ["git", "rebase", "-x", "git commit --amend --no-edit && make"]),
        row(31, 30, "sh", ["/bin/sh", "-c", "git commit --amend --no-edit && make"]),
        commit(32, 31),
        hook(33, 32),
      ],
      { ok: true, pid: 20, agent: "bash" },
    ],
    [
      "pi started from the person's shell commits from its bash tool: pi, not the person",
      [
        init,
        server,
        person,
        row(40, 20, "pi", ["pi"]),
        row(41, 40, "bash", ["/bin/bash", "-c", "git commit -qm parser"]),
        commit(42, 41),
        hook(43, 42),
      ],
      { ok: true, pid: 40, engine: "pi" },
    ],
    [
      "Claude Code's Bash tool (a shell of several commands): Claude Code",
      [
        init,
        server,
        person,
        row(50, 20, "claude", ["claude"]),
        row(51, 50, "bash", ["/bin/bash", "-c", "-l", "source snap && eval 'git commit'"]),
        commit(52, 51),
        hook(53, 52),
      ],
      { ok: true, pid: 50, engine: "claude" },
    ],
    [
      "lazygit, started from the person's shell, commits: the person",
      [init, server, person, row(35, 20, "lazygit", ["lazygit"]), commit(36, 35), hook(37, 36)],
      { ok: true, pid: 20, agent: "bash" },
    ],
    [
      "make commit: the person",
      [
        init,
        server,
        person,
        row(35, 20, "make", ["make", "commit"]),
        row(36, 35, "sh", ["/bin/sh", "-c", "git commit -qm parser"]),
        commit(37, 36),
        hook(38, 37),
      ],
      { ok: true, pid: 20, agent: "bash" },
    ],
    [
      "a program that ran git (an editor, a bot) is the caller, not the shell above it",
      [
        init,
        server,
        person,
        row(60, 20, "python3", ["python3", "bot.py"]),
        commit(61, 60),
        hook(62, 61),
      ],
      { ok: true, pid: 60, agent: "python3" },
    ],
  ])("%s", (_who, rows, expected) => {
    expect(findCaller(rows, rows.at(-1)!.pid, byName)).toMatchObject(expected);
  });

  const sandbox = row(1, 0, "codex-linux-san", ["/opt/codex/codex-linux-sandbox", "-p", "{}"]);
  it.each<[string, CallerProcess[]]>([
    [
      "its shell tool's one command",
      [sandbox, row(2, 1, "bash", ["/bin/bash", "-lc", "git commit -qm parser"]), commit(3, 2)],
    ],
    [
      "a script of several commands, which outlives git",
      [sandbox, row(2, 1, "bash", ["/bin/bash", "-lc", "git add -A; git commit -qm x && git log"])],
    ],
    ["a program it ran", [sandbox, row(2, 1, "python3", ["python3", "tool.py"]), commit(3, 2)]],
  ])("in Codex's sandbox, %s: its thread's member, never a process there", (_case, rows) => {
    const chain = [...rows, hook(9, rows.at(-1)!.pid)];
    const found = findCaller(chain, 9, byName);
    expect(found).toMatchObject({ ok: false, reason: "sandboxed", engine: "codex" });
    expect(sandboxedMemberId(found, { CODEX_THREAD_ID: THREAD })).toBe(`codex-${THREAD}`);
  });

  it.each<[string, CallerProcess[], RegExp]>([
    [
      "a git whose shell has gone (re-parented to init)",
      [init, commit(30, 1), hook(31, 30)],
      /is init \(pid 1\)/,
    ],
    ["a git a tmux window runs by itself", [init, server, commit(30, 10), hook(31, 30)], /is tmux/],
  ])("no caller: %s", (_case, rows, pattern) => {
    const found = findCaller(rows, rows.at(-1)!.pid, byName);
    expect(found).toMatchObject({ ok: false, reason: "no-caller" });
    expect(found.ok ? "" : found.error).toMatch(pattern);
  });
});

describe("engine session ids: one pattern for every door", () => {
  const THREAD = "01a22ae4-26be-7480-acf3-78282d1c9f00";
  it.each([
    [THREAD, true],
    ["short", false],
    ["-leading-dash", false],
    ["has space inside", false],
    ["x".repeat(65), false],
    [42, false],
  ])("%j is a session id: %s", (text, valid) => {
    expect(isSessionId(text)).toBe(valid);
    expect(codexMemberId(text)).toBe(valid ? `codex-${text}` : undefined);
  });

  it("reads the thread back from a Codex member id only", () => {
    expect(codexThreadOf(`codex-${THREAD}`)).toBe(THREAD);
    expect(codexThreadOf(`claude-${THREAD}`)).toBeUndefined();
    expect(codexThreadOf("codex-short")).toBeUndefined();
  });
});
