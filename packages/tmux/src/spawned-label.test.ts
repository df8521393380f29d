// The rule that names a caller's label from the spawn record of its launch: only a record whose
// every word still holds now, for this caller, and only one.
import { describe, expect, it } from "vitest";
import {
  type LaunchCaller,
  type LaunchScan,
  launchOf,
  launchPids,
  type SpawnRecord,
} from "./index.js";

const SERVER = "/tmp/tmux-0/default";

/** bob's launch: muster opened %7 on the server with pid 100 and started pid 4242 there. */
const bob: SpawnRecord = {
  v: 1,
  label: "bob",
  engine: "codex",
  server: SERVER,
  serverPid: 100,
  pane: "%7",
  pid: 4242,
  start: "555",
  cwd: "/repo",
  by: { pane: "%3", label: "lead" },
  at: "2026-12-02T13:00:00.000Z",
};
/** alice's launch, in another pane. */
const alice: SpawnRecord = { ...bob, label: "alice", pane: "%5", pid: 3131, start: "444" };

/** bob's Codex TUI: the native codex (4244) under the node wrapper muster started (4242). */
const caller: LaunchCaller = {
  engine: "codex",
  server: SERVER,
  serverPid: 100,
  pane: "%7",
  pid: 4244,
};
const processes = [
  { pid: 4242, ppid: 90 },
  { pid: 4244, ppid: 4242 },
  { pid: 3131, ppid: 90 },
  { pid: 3133, ppid: 3131 },
];
const scan = (more: Partial<LaunchScan> = {}): LaunchScan => ({
  panePid: 4242,
  starts: new Map([
    [4242, "555"],
    [3131, "444"],
  ]),
  processes,
  ...more,
});

describe("launchOf", () => {
  it("names the label of the one record whose pane, server and process are the caller's now", () => {
    expect(launchOf([alice, bob], caller, scan())).toMatchObject({ ok: true, label: "bob" });
    // alice's thread, served by the same daemon, is named by its own record.
    const hers = { ...caller, pane: "%5", pid: 3133 };
    expect(launchOf([alice, bob], hers, scan({ panePid: 3131 }))).toMatchObject({
      ok: true,
      label: "alice",
    });
  });

  it.each<[string, SpawnRecord[], LaunchCaller, LaunchScan]>([
    ["no record at all", [], caller, scan()],
    ["only another pane's record", [alice], caller, scan()],
    ["a record of another engine", [{ ...bob, engine: "claude" }], caller, scan()],
    ["a record on another server's socket", [{ ...bob, server: "/tmp/other" }], caller, scan()],
    // Pane ids are reused after a server restart: the record's server pid is not this server's.
    ["a record from before the server restarted", [{ ...bob, serverPid: 99 }], caller, scan()],
    // The pane muster opened now runs another process (respawn-pane keeps the id).
    ["a pane that runs another process now", [bob], caller, scan({ panePid: 5000 })],
    // Pids are reused: the same pid, started at another time, is another process.
    ["a pid reused by a later process", [bob], caller, scan({ starts: new Map([[4242, "999"]]) })],
    ["a process that runs no more", [bob], caller, scan({ starts: new Map() })],
    [
      "a caller that does not run under the launched process",
      [bob],
      { ...caller, pid: 3133 },
      scan(),
    ],
  ])("names none for %s", (_name, records, who, now) => {
    expect(launchOf(records, who, now)).toMatchObject({ ok: false, reason: "none" });
  });

  it("never lets a planted record take another's label: two records that hold name no one", () => {
    // A record planted as alice's that copies every word of bob's launch: it cannot be told from
    // bob's own, so neither is believed (the caller falls back to MUSTER_LABEL).
    const planted = { ...bob, label: "alice" };
    expect(launchOf([planted, bob], caller, scan())).toEqual({
      ok: false,
      reason: "ambiguous",
      labels: ["alice", "bob"],
    });
    // A record naming alice for bob's pane, stale in any word, is not bob's: bob's own stands.
    const stale = { ...bob, label: "alice", start: "554" };
    expect(launchOf([stale, bob], caller, scan())).toMatchObject({ ok: true, label: "bob" });
  });

  it("a loop in the process table ends the walk up", () => {
    const looped = [
      { pid: 4244, ppid: 4245 },
      { pid: 4245, ppid: 4244 },
    ];
    expect(launchOf([bob], caller, scan({ processes: looped }))).toMatchObject({ ok: false });
  });
});

describe("launchPids", () => {
  it("asks only for the processes of records in the caller's pane, each once", () => {
    expect(launchPids([alice, bob, { ...bob, label: "carol" }], caller)).toEqual([4242]);
  });
});
