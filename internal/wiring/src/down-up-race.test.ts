// `muster up` while a member is still quitting at a `down`'s request (a down SIGKILLed after it
// asked, or one still running): pi leaves the roster on its way out (its session_shutdown), which
// removes its record and the roster's `ending` mark on it, and its process and pane outlast that
// leave by a moment. `up` must not call that pane live: it waits until the pane is gone, then
// brings the member back. The "engine" here is a process that, asked to quit, says so and exits a
// second later; the test plays pi's own leave at that moment, as pi does.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, processAlive, processFacts, processStart } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import { LONG_TESTS } from "@muster/test-support";
import type { SpawnRecord, TmuxRunner } from "@muster/tmux";
import { afterEach, expect, it } from "vitest";
import { onePaneServer } from "../test/one-pane-server.ts";
import { readSpawnRecord, writeSpawnRecord } from "./spawn-records.ts";
import { teamDown } from "./team-down.ts";
import { liveNow } from "./team-up-check.ts";
import type { TeamEffects } from "./team-up-types.ts";

const SOCKET = "/tmp/muster-test-race/default";
const ID = "019afc3e-4a5b-7c6d-8e9f-0a1b2c3d4e5f";

const cleanups: (() => void)[] = [];
/** Downs still running when a test ends: settled before their team folder is removed. */
const downs: Promise<unknown>[] = [];
afterEach(async () => {
  await Promise.allSettled(downs.splice(0));
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** An engine that, asked to quit (SIGTERM, pi's quit), prints "asked" and exits `lingerMs` later. */
async function engine(lingerMs: number): Promise<ChildProcess> {
  const code = `process.on("SIGTERM", () => { console.log("asked"); setTimeout(() => process.exit(0), ${lingerMs}); }); setInterval(() => {}, 1000); console.log("ready");`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "ignore"] });
  cleanups.push(() => child.kill("SIGKILL"));
  await said(child, "ready");
  return child;
}

const said = (child: ChildProcess, word: string) =>
  new Promise<void>((resolve) => {
    child.stdout!.on("data", (data: Buffer) => {
      if (data.toString().includes(word)) resolve();
    });
  });

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** The stand-in server showing pane %7 running `pid` while `shown()` (tmux closes it after). */
const server = (pid: number, shown: () => boolean, dead = false) =>
  onePaneServer(SOCKET, pid, { shown, dead });

async function setUp(child: { pid?: number | undefined }, run: TmuxRunner) {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-down-up-race-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: processFacts });
  if (!opened.ok) throw new Error(opened.error);
  const roster: Roster = opened.roster;
  const pid = child.pid!;
  const start = processStart(pid)!;
  await roster.join({
    id: ID,
    label: "bob",
    agent: "pi",
    pid,
    pidStart: start,
    watching: { armed: true, wake: true },
    liveness: "heartbeat",
  });
  const record: SpawnRecord = {
    v: 1,
    label: "bob",
    engine: "pi",
    server: SOCKET,
    serverPid: 4242,
    pane: "%7",
    pid,
    start,
    cwd: dir,
    by: { pane: "%1" },
    at: new Date().toISOString(),
    session: ID,
  };
  await writeSpawnRecord({ dir }, record);
  const effects = { roster, teamDir: dir, run, env: {} } as unknown as TeamEffects;
  return { dir, roster, effects };
}

it("a member that left the roster on its way out at a down's request is not live while its pane outlasts the leave", async () => {
  const child = await engine(1500);
  const { dir, roster, effects } = await setUp(child, server(child.pid!, () => running(child)).run);
  const asked = said(child, "asked");
  const down = teamDown({ cwd: dir, labels: ["bob"] }, effects);
  downs.push(down);
  await asked;
  // pi's own leave as it quits: its record goes, and the down's mark on it with it.
  await roster.leave(ID);
  // What `up` reads: the spawn record as the down left it so far (a killed down leaves no more).
  const record = await readSpawnRecord({ dir }, "bob");
  expect(record?.down).toBeUndefined();
  expect(running(child)).toBe(true);
  const live = await liveNow(effects, "bob", record);
  // Not live: up waited for the quitting engine's pane to go, so it brings the member back.
  expect(running(child)).toBe(false);
  expect(live).toBeUndefined();
  const done = await down;
  expect(done.ok && done.members[0]).toMatchObject({ label: "bob", outcome: "down" });
}, 20_000);

it("a member a down marked but never asked (killed between) is live once the mark is old", async () => {
  const child = await engine(0);
  const { dir, effects } = await setUp(child, server(child.pid!, () => running(child)).run);
  const record = await readSpawnRecord({ dir }, "bob");
  // A down killed after its marks, before it asked: the marks are a minute old now.
  const old = new Date(Date.now() - 60_000).toISOString();
  await effects.roster.markEnding(ID, "down");
  const read = await effects.roster.read();
  const member = read.ok ? read.members.find((each) => each.id === ID) : undefined;
  expect(member?.ended).toBeDefined();
  const marked = { ...record!, ending: old };
  const aged = {
    ...effects,
    roster: {
      read: async () => {
        const now = await effects.roster.read();
        return now.ok
          ? {
              ...now,
              members: now.members.map((each) => ({ ...each, ended: { at: old, by: "down" } })),
            }
          : now;
      },
    },
  } as TeamEffects;
  const began = Date.now();
  const live = await liveNow(aged, "bob", marked);
  expect(live?.id).toBe(ID);
  expect(Date.now() - began).toBeLessThan(2000);
  expect(running(child)).toBe(true);
}, 20_000);

/**
 * A process that has exited but is not reaped (a zombie), as a quitting pi was seen in its pane
 * for half a minute: tmux keeps the pane, dead, until it reaps it. `sleep 30` is the parent that
 * never reaps: the shell before it started the child, then became it.
 */
async function zombie(): Promise<{ pid: number; start: string }> {
  const parent = spawn("sh", ["-c", "sleep 0.3 & echo $!; exec sleep 30"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  cleanups.push(() => parent.kill("SIGKILL"));
  const pid = Number(await new Promise<string>((resolve) => parent.stdout.once("data", resolve)));
  const start = processStart(pid)!;
  for (let waited = 0; processAlive(pid, start) !== "dead" && waited < 5000; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  expect(processStart(pid)).toBe(start);
  return { pid, start };
}

it("a member whose engine quit at a down's request but is not reaped yet (its pane kept dead) is not live", async () => {
  const ended = await zombie();
  const { run, killed } = server(ended.pid, () => true, true);
  const { dir, effects } = await setUp(ended, run);
  // What a down killed after it asked leaves: its marks, and the engine gone from the roster.
  const record = await readSpawnRecord({ dir }, "bob");
  await writeSpawnRecord(
    { dir },
    { ...record!, start: ended.start, ending: new Date().toISOString() },
  );
  await effects.roster.leave(ID);
  const began = Date.now();
  const live = await liveNow(effects, "bob", await readSpawnRecord({ dir }, "bob"));
  expect(live).toBeUndefined();
  expect(Date.now() - began).toBeLessThan(2000);
  expect(killed).toEqual([]);
});

// A mark is a timestamp someone else wrote (a spawn record's `ending`, a roster record's `ended`):
// one in the future never holds `up` longer than the wait from now, whatever it says. It sits
// the whole wait (10 s): `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
it.skipIf(!LONG_TESTS)(
  "a member marked as ending far in the future holds up no longer than the wait",
  async () => {
    const child = await engine(0);
    const { dir, effects } = await setUp(child, server(child.pid!, () => running(child)).run);
    const record = await readSpawnRecord({ dir }, "bob");
    const marked = { ...record!, ending: "2999-01-01T00:00:00.000Z" };
    const began = Date.now();
    const live = await liveNow(effects, "bob", marked);
    expect(live?.id).toBe(ID);
    expect(Date.now() - began).toBeLessThan(15_000);
    expect(running(child)).toBe(true);
  },
  40_000,
);
