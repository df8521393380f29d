// A spawned pane whose process has exited but is not reaped (a zombie: tmux 3.3a was seen to keep
// a quitting pi so for half a minute) runs nothing, though its pid and start time still match the
// record. A spawn of that label is not refused as "already runs" (its pane is closed, as `up`
// closes it), and `spawn --list` says it exited, not running. The pane is the stand-in server's
// (onePaneServer); the zombie is a real process whose parent never reaps it.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, processAlive, processFacts, processStart } from "@muster/node";
import { openRoster } from "@muster/roster";
import type { SpawnRecord, TmuxRunner } from "@muster/tmux";
import { afterEach, expect, it } from "vitest";
import { onePaneServer } from "../test/one-pane-server.ts";
import { refuseTaken } from "./spawn-claim.ts";
import { writeSpawnRecord } from "./spawn-records.ts";
import { spawnedState } from "./spawned.ts";

const SOCKET = "/tmp/muster-test-zombie/default";
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A process that waits: the engine still running in its pane. */
function live(): ChildProcess {
  const child = spawn("sleep", ["600"], { stdio: "ignore" });
  cleanups.push(() => child.kill("SIGKILL"));
  return child;
}

/** A process that has exited and is not reaped: its parent (`sleep 30`, once a shell) never waits. */
async function zombie(): Promise<{ pid: number; start: string }> {
  const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 30"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  cleanups.push(() => parent.kill("SIGKILL"));
  const pid = Number(await new Promise<string>((resolve) => parent.stdout.once("data", resolve)));
  let start = processStart(pid);
  for (let waited = 0; start !== undefined && processAlive(pid, start) !== "dead"; waited += 20) {
    if (waited > 5000) throw new Error(`${pid} did not end`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    start = processStart(pid);
  }
  // Still there, with its start time: only its state says it has ended.
  if (start === undefined) throw new Error(`${pid} was reaped`);
  return { pid, start };
}

/** A team folder whose spawn record names pane %7 of the stand-in server, started as `process`. */
async function recorded(process: { pid: number; start: string }, run: TmuxRunner) {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-spawned-zombie-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: processFacts });
  if (!opened.ok) throw new Error(opened.error);
  const record: SpawnRecord = {
    v: 1,
    label: "bob",
    engine: "pi",
    server: SOCKET,
    serverPid: 4242,
    pane: "%7",
    pid: process.pid,
    start: process.start,
    cwd: dir,
    by: { pane: "%1" },
    at: new Date().toISOString(),
  };
  await writeSpawnRecord({ dir }, record);
  return { effects: { roster: opened.roster, teamDir: dir, run }, record };
}

it("a spawn of a label whose pane's process is a zombie is not refused; that pane is closed", async () => {
  const ended = await zombie();
  const { run, killed } = onePaneServer(SOCKET, ended.pid);
  const { effects } = await recorded(ended, run);
  await expect(refuseTaken(effects, "bob", [])).resolves.toBeUndefined();
  expect(killed).toEqual(["%7"]);
});

it("a spawn of a label whose pane's process runs is refused, and the pane stays", async () => {
  const child = live();
  const start = processStart(child.pid!)!;
  const { run, killed } = onePaneServer(SOCKET, child.pid!);
  const { effects } = await recorded({ pid: child.pid!, start }, run);
  await expect(refuseTaken(effects, "bob", [])).rejects.toMatchObject({ reason: "label-spawned" });
  expect(killed).toEqual([]);
});

it("spawn --list's state: exited for a zombie, running for a live process, gone for no pane", async () => {
  const ended = await zombie();
  const zombieRun = onePaneServer(SOCKET, ended.pid).run;
  expect(await spawnedState(zombieRun, (await recorded(ended, zombieRun)).record)).toBe("exited");
  const child = live();
  const start = processStart(child.pid!)!;
  const liveRun = onePaneServer(SOCKET, child.pid!).run;
  const { record } = await recorded({ pid: child.pid!, start }, liveRun);
  expect(await spawnedState(liveRun, record)).toBe("running");
  const goneRun = onePaneServer(SOCKET, child.pid!, { shown: () => false }).run;
  expect(await spawnedState(goneRun, record)).toBe("gone");
});
