import { describe, expect, it } from "vitest";
import {
  decideStop,
  type Pane,
  parseSpawnRecord,
  type SpawnRecord,
  type StopScan,
} from "./index.js";

const record: SpawnRecord = {
  v: 1,
  label: "bob",
  engine: "pi",
  server: "/tmp/tmux-0/default",
  serverPid: 100,
  pane: "%7",
  pid: 4242,
  start: "555",
  cwd: "/repo",
  by: { pane: "%3", label: "alice" },
  at: "2026-11-30T16:00:00.000Z",
};

const pane = (pid: number): Pane => ({
  id: "%7",
  pid,
  tty: "/dev/pts/3",
  sessionId: "$0",
  sessionName: "main",
  windowId: "@1",
  windowIndex: 0,
  paneIndex: 1,
  dead: false,
  command: "node",
  path: "/repo",
  title: "",
});

const scan = (more: Partial<StopScan & { answered: true }> = {}): StopScan => ({
  answered: true,
  server: { socket: record.server, pid: 100 },
  pane: pane(4242),
  start: "555",
  ...more,
});

describe("decideStop: a pane is closed only while server, pane and process all agree", () => {
  it.each<[string, StopScan, string]>([
    ["the pane muster opened, still running what it started", scan(), "ok"],
    ["the server did not answer", { answered: false }, "no-server"],
    [
      "the server restarted and reused the pane id",
      scan({ server: { socket: record.server, pid: 101 } }),
      "server-restarted",
    ],
    ["the pane is gone", scan({ pane: undefined }), "gone"],
    ["the pane was respawned: another process", scan({ pane: pane(5000) }), "not-ours"],
    ["the pid was reused: another start time", scan({ start: "999" }), "not-ours"],
    ["the process is gone from the pane's pid", scan({ start: undefined }), "not-ours"],
    [
      "the pane kept dead after its program ended (remain-on-exit), naming the pid it started",
      scan({ pane: { ...pane(4242), dead: true }, start: undefined }),
      "ok",
    ],
    [
      "a dead pane that names another pid",
      scan({ pane: { ...pane(5000), dead: true }, start: undefined }),
      "not-ours",
    ],
  ])("%s", (_, seen, expected) => {
    const decision = decideStop(record, seen);
    expect(decision.ok ? "ok" : decision.reason).toBe(expected);
  });

  it("a refusal is one line that says what to do", () => {
    const decision = decideStop(record, scan({ server: { socket: record.server, pid: 7 } }));
    expect(decision.ok).toBe(false);
    if (!decision.ok) expect(decision.error).not.toContain("\n");
  });
});

describe("parseSpawnRecord: the file is written by muster, but read as hostile", () => {
  it("reads what muster writes", () => {
    expect(parseSpawnRecord(JSON.stringify(record))).toEqual(record);
    const kept = {
      ...record,
      session: "019b0000-aaaa-7bbb-8ccc-ddddeeeeffff",
      down: "2026-12-07",
      ending: "2026-12-07T21:00:00.000Z",
      member: "019b0000-aaaa-7bbb-8ccc-ddddeeeeffff",
      args: ["--provider", "faux", "--model", "faux-1"],
    };
    expect(parseSpawnRecord(JSON.stringify(kept))).toEqual(kept);
  });

  it.each<[string, unknown]>([
    ["not JSON", "{"],
    ["another version", { ...record, v: 2 }],
    ["a label that is a path", { ...record, label: "../../etc" }],
    ["a pane that is not a pane id", { ...record, pane: "main:0" }],
    ["a pid that is not one", { ...record, pid: -1 }],
    ["a relative server socket", { ...record, server: "default" }],
    ["no start time", { ...record, start: "" }],
    ["no spawner", { ...record, by: null }],
    ["a session that is an option", { ...record, session: "--extension=x.ts" }],
    ["a session that is a path", { ...record, session: "../../../etc/passwd" }],
    ["a session that is not text", { ...record, session: 7 }],
    ["a down that is not text", { ...record, down: {} }],
    ["an ending that is not text", { ...record, ending: 1 }],
    ["a member id that is a path", { ...record, member: "../sessions/x" }],
    ["args that are not a list", { ...record, args: "--model x" }],
    ["args that are not text", { ...record, args: ["--model", 7] }],
  ])("refuses %s", (_, value) => {
    expect(parseSpawnRecord(typeof value === "string" ? value : JSON.stringify(value))).toBe(
      undefined,
    );
  });
});
