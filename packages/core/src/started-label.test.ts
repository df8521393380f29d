import { describe, expect, it } from "vitest";
import { chooseLabel } from "./_label.js";
import {
  type EnvironRead,
  MAX_STARTED_PIDS,
  type StartedProcess,
  startedLabel,
  startedPids,
} from "./_started-label.js";

// A pane's tree as a hand-started Codex shows it: bash, Codex's node wrapper, its native binary,
// the app-server daemon the first TUI started (with another window's environment), a shell tool.
const row = (pid: number, ppid: number, engine?: string, argv: string[] = []): StartedProcess => ({
  pid,
  ppid,
  start: `${pid}00`,
  engine,
  argv,
});
const TABLE = [
  row(10, 1),
  row(11, 10, "codex", ["node", "/x/@openai/codex/bin/codex.js"]),
  row(12, 11, "codex", ["/x/codex-linux-x64/vendor/bin/codex"]),
  row(13, 12, "codex", ["/x/codex", "app-server", "--managed-daemon"]),
  row(14, 12, undefined, ["bash", "-c", "ls"]),
  row(20, 1, "codex", ["codex"]),
];
const CALLER = { engine: "codex", pid: 11, start: "1100" };
const environ = (...entries: string[]) => `${entries.join("\0")}\0`;
const reads = (
  byPid: Record<number, EnvironRead>,
  all: EnvironRead = { ok: true, environ: environ("HOME=/h", "MUSTER_LABEL=bob"), start: "" },
) =>
  new Map(
    startedPids(CALLER, TABLE).map((pid) => [
      pid,
      byPid[pid] ?? (all.ok ? { ...all, start: `${pid}00` } : all),
    ]),
  );

describe("startedLabel: the label the caller's own Codex was started with", () => {
  it("reads the caller's Codex and the Codex under it, never the daemon nor another pane's", () => {
    expect(startedPids(CALLER, TABLE)).toEqual([11, 12]);
    expect(startedLabel(CALLER, TABLE, reads({}))).toEqual({ ok: true, label: "bob" });
  });

  it("asks nothing of an engine whose server has its caller's environment", () => {
    const claude = { engine: "claude", pid: 11, start: "1100" };
    expect(startedPids(claude, TABLE)).toEqual([]);
    expect(startedLabel(claude, TABLE, new Map())).toEqual({ ok: false, reason: "own-env" });
  });

  it.each<[string, Record<number, EnvironRead>, string]>([
    [
      "a label the roster would refuse",
      { 12: { ok: true, environ: environ("MUSTER_LABEL=../alice"), start: "1200" } },
      "bad-label",
    ],
    [
      "a label with a terminal escape",
      { 11: { ok: true, environ: environ("MUSTER_LABEL=bob\u001b[2J"), start: "1100" } },
      "bad-label",
    ],
    [
      "a label too long",
      { 11: { ok: true, environ: environ(`MUSTER_LABEL=${"b".repeat(33)}`), start: "1100" } },
      "bad-label",
    ],
    [
      "two values in one block",
      {
        11: { ok: true, environ: environ("MUSTER_LABEL=bob", "MUSTER_LABEL=alice"), start: "1100" },
      },
      "bad-label",
    ],
    [
      "a pid reused since the table was read",
      { 12: { ok: true, environ: environ("MUSTER_LABEL=bob"), start: "9999" } },
      "reused",
    ],
    [
      "a start time that could not be read after",
      { 12: { ok: true, environ: environ("MUSTER_LABEL=bob"), start: undefined } },
      "reused",
    ],
    [
      "two candidates naming different labels",
      { 12: { ok: true, environ: environ("MUSTER_LABEL=carol"), start: "1200" } },
      "ambiguous",
    ],
    [
      "one candidate naming none",
      { 12: { ok: true, environ: environ("HOME=/h"), start: "1200" } },
      "ambiguous",
    ],
    ["an environ that cannot be read", { 12: { ok: false, reason: "unreadable" } }, "unreadable"],
    ["no /proc on this platform", { 11: { ok: false, reason: "unsupported" } }, "unsupported"],
  ])("refuses %s", (_name, byPid, reason) => {
    expect(startedLabel(CALLER, TABLE, reads(byPid))).toEqual({ ok: false, reason });
  });

  it("refuses a caller the table no longer shows with its start time (its pid reused)", () => {
    const reused = { ...CALLER, start: "777" };
    expect(startedLabel(reused, TABLE, reads({}))).toEqual({ ok: false, reason: "no-process" });
    expect(startedLabel(CALLER, [], new Map())).toEqual({ ok: false, reason: "no-process" });
  });

  it("a read missing for a candidate decides nothing", () => {
    const partial = new Map([
      [11, { ok: true, environ: environ("MUSTER_LABEL=bob"), start: "1100" } as const],
    ]);
    expect(startedLabel(CALLER, TABLE, partial)).toEqual({ ok: false, reason: "unreadable" });
  });

  it("says unset when the caller's Codex was started with no MUSTER_LABEL", () => {
    const none = { ok: true, environ: environ("HOME=/h", "MUSTER_LABEL="), start: "" } as const;
    expect(startedLabel(CALLER, TABLE, reads({}, none))).toEqual({ ok: false, reason: "unset" });
  });
});

// The tree real Codex 0.171.0 shows (ps --forest): the first TUI's native binary is the daemon's
// parent, and every thread's `muster mcp` and tool commands run under the daemon (a tool may run
// `codex exec`, or `MUSTER_LABEL=mallory exec -a codex sleep 40`).
const DAEMON_TREE = [
  row(100, 1, undefined, ["bash", "--norc"]),
  row(101, 100, "codex", ["node", "/x/@openai/codex/bin/codex.js"]),
  row(102, 101, "codex", ["/x/vendor/x86_64-unknown-linux-musl/bin/codex"]),
  row(103, 102, "codex", [
    "/h/.codex/bin/codex",
    "app-server",
    "--listen",
    "unix://",
    "--managed-daemon",
  ]),
  row(104, 102, "codex", ["/h/.codex/bin/codex", "app-server", "daemon", "pid-update-loop"]),
  row(105, 103, undefined, ["node", "/x/muster.js", "mcp"]),
  row(106, 103, undefined, ["bash", "-lc", "codex exec hi"]),
  row(107, 106, "codex", ["/x/vendor/bin/codex", "exec", "hi"]),
  row(108, 103, "codex", ["codex", "40"]),
  row(109, 107, "codex", ["codex"]),
];
const FIRST = { engine: "codex", pid: 101, start: "10100" };
const readAll = (caller: typeof FIRST, table: StartedProcess[], label: (pid: number) => string) =>
  new Map(
    startedPids(caller, table).map((pid) => [
      pid,
      { ok: true, environ: environ(`MUSTER_LABEL=${label(pid)}`), start: `${pid}00` } as const,
    ]),
  );

describe("startedLabel under Codex's app-server daemon", () => {
  it("never reads into the daemon's subtree: the first window stays its own", () => {
    expect(startedPids(FIRST, DAEMON_TREE)).toEqual([101, 102]);
    const label = (pid: number) => (pid < 103 ? "alice" : "mallory");
    expect(startedLabel(FIRST, DAEMON_TREE, readAll(FIRST, DAEMON_TREE, label))).toEqual({
      ok: true,
      label: "alice",
    });
  });

  it("decides only with the caller's own row read: processes under it alone decide nothing", () => {
    const renamed = DAEMON_TREE.map((one) =>
      one.pid === 101 ? { ...one, engine: undefined } : one,
    );
    expect(startedPids(FIRST, renamed)).toEqual([]);
    expect(
      startedLabel(
        FIRST,
        renamed,
        readAll(FIRST, renamed, () => "mallory"),
      ),
    ).toEqual({
      ok: false,
      reason: "no-process",
    });
    const daemon = { engine: "codex", pid: 103, start: "10300" };
    expect(startedPids(daemon, DAEMON_TREE)).toEqual([]);
    expect(startedLabel(daemon, DAEMON_TREE, new Map())).toEqual({
      ok: false,
      reason: "no-process",
    });
  });

  it("refuses past a cap on candidates, and names no more than one past it to read", () => {
    const many = [
      ...TABLE,
      ...Array.from({ length: 50 }, (_, index) => row(200 + index, 12, "codex", ["codex"])),
    ];
    const pids = startedPids(CALLER, many);
    expect(pids.length).toBeLessThanOrEqual(MAX_STARTED_PIDS + 1);
    expect(
      startedLabel(
        CALLER,
        many,
        readAll(CALLER, many, () => "bob"),
      ),
    ).toEqual({
      ok: false,
      reason: "too-many",
    });
  });
});

describe("chooseLabel with what the caller's process was started with", () => {
  const base = { taken: [], random: () => 0, prefix: "codex" };
  it.each<[string, Parameters<typeof chooseLabel>[0]["started"], string]>([
    ["its own label, over the first window's", { ok: true, label: "bob" }, "bob"],
    [
      "the server's env where nothing can be read (not Linux)",
      { ok: false, reason: "unsupported" },
      "alice",
    ],
    ["the server's env where it is the caller's own", { ok: false, reason: "own-env" }, "alice"],
    ["the server's env where nothing was asked", undefined, "alice"],
    [
      "a generated label, never the first window's, on a bad label",
      { ok: false, reason: "bad-label" },
      "codex-ash",
    ],
    ["a generated label on a reused pid", { ok: false, reason: "reused" }, "codex-ash"],
    ["a generated label on two candidates", { ok: false, reason: "ambiguous" }, "codex-ash"],
    [
      "a generated label on an unreadable environ",
      { ok: false, reason: "unreadable" },
      "codex-ash",
    ],
    [
      "a generated label when it was started with none",
      { ok: false, reason: "unset" },
      "codex-ash",
    ],
  ])("gives %s", (_name, started, label) => {
    expect(chooseLabel({ ...base, env: "alice", started }).label).toBe(label);
  });
});
