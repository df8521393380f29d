// Which pane `muster stop` and `muster down` may close: one rule for both (the tmux leaf's
// decideStop, asked by the wiring's endSpawned), and a check that cannot decide refuses. The pane
// is the record's, on the record's server; what changes is whether its process is provably the one
// muster started: a pid whose start time cannot be read, or a pid reused by another process, is not.
import { spawnSync } from "node:child_process";
import type { SpawnRecord } from "@muster/tmux";
import { describe, expect, it } from "vitest";
import { onePaneServer } from "../test/one-pane-server.ts";
import { endSpawned } from "./team-down.ts";

const SOCKET = "/tmp/muster-test-close/default";

/** A pid that runs no process now: its start time cannot be read. */
function unusedPid(): number {
  const child = spawnSync("true");
  return child.pid;
}

const record = (pid: number, start: string): SpawnRecord => ({
  v: 1,
  label: "bob",
  engine: "pi",
  server: SOCKET,
  serverPid: 4242,
  pane: "%7",
  pid,
  start,
  cwd: "/tmp",
  by: { pane: "%1" },
  at: new Date().toISOString(),
});

/** The stand-in server showing pane %7 running `pid`, dead or live; `closed`: the panes killed. */
function server(pid: number, dead: boolean) {
  const { run, killed } = onePaneServer(SOCKET, pid, { dead });
  return { run, closed: killed };
}

describe("the pane stop and down may close", () => {
  it("a live pane whose process start cannot be read is not closed", async () => {
    const pid = unusedPid();
    const { run, closed } = server(pid, false);
    const ended = await endSpawned(run, record(pid, "123456"));
    expect(ended.closed).toBe(false);
    expect(closed).toEqual([]);
  });

  it("a live pane whose pid now names another process (reused) is not closed", async () => {
    // The test's own process, with another start time than the record's: a reused pid.
    const { run, closed } = server(process.pid, false);
    const ended = await endSpawned(run, { ...record(process.pid, "1"), engine: "no-engine" });
    expect(ended.closed).toBe(false);
    expect(closed).toEqual([]);
  });

  it("a pane kept dead after the process muster started ended there is closed", async () => {
    const pid = unusedPid();
    const { run, closed } = server(pid, true);
    const ended = await endSpawned(run, record(pid, "123456"));
    expect(ended.closed).toBe(true);
    expect(closed).toEqual(["%7"]);
  });
});
