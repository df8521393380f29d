// No wake is lost, and the sender is told: the wake rate is counted per member across every
// process that can wake it (the roster's wake slots), a wake the rate holds back is marked held in
// the receipt and woken after the window, a waker never wakes its own fresh claim again, and a
// stopping waker finishes the sweep in flight. A real team folder; real `muster hook codex notify`
// processes racing; a fake `codex` that logs each queue; an injected clock where time passes.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_WAKE_POLICY } from "@muster/core";
import { nodeFs, processFacts, processStart } from "@muster/node";
import { openRoster, type Roster, WAKE_CLAIM_MS } from "@muster/roster";
import { eventually } from "@muster/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { fakeEngine, joinPeer, roster, type Scratch, scratch } from "../test/helpers.js";
import { type CodexRunner, createCodexWaker, startCodexWaker } from "./_codex-wake.js";

const THREAD = "01a22ae4-26be-7480-acf3-78282d1c9f00";
const MEMBER = `codex-${THREAD}`;
const NOTIFY = path.join(import.meta.dirname, "..", "test", "notify.mjs");
let work: Scratch;
afterEach(() => work?.cleanup());

/** A team with a wakeable Codex member (kept live by this process) and a peer; `clock` moves. */
async function setup() {
  work = scratch();
  const first = await roster(work.teamDir);
  const clock = { now: Date.now() };
  const opened = await openRoster({
    dir: work.teamDir,
    fs: nodeFs,
    clock: () => clock.now,
    processes: processFacts,
  });
  if (!opened.ok) throw new Error(opened.error);
  const team = opened.roster;
  const joined = await first.join({
    id: MEMBER,
    label: "coder",
    agent: "codex",
    pid: process.pid,
    pidStart: processStart(process.pid),
    watching: { armed: true, wake: true },
    liveness: "process",
    engineHome: "/home/ann/.codex",
  });
  if (!joined.ok) throw new Error(joined.error);
  const peer = await joinPeer(first, "reviewer");
  const send = async (body: string) => {
    const sent = await team.send({ from: peer, to: "coder", body });
    if (!sent.ok) throw new Error(sent.error);
    return sent.id;
  };
  return { team, clock, send };
}

const entry = async (team: Roster, id: string) => {
  const receipt = await team.receipt(id);
  return receipt.ok ? receipt.recipients.find((each) => each.id === MEMBER) : undefined;
};

/** A waker of this process on `team`, on the team's clock, logging each queue. */
function waker(team: Roster, clock: { now: number }, run?: CodexRunner) {
  const runs: string[][] = [];
  const created = createCodexWaker({
    roster: async () => team,
    env: { HOME: "/home/ann" },
    codexFor: async () => ["codex"],
    run:
      run ??
      (async (_argv, args) => {
        runs.push(args);
        return { status: 0 };
      }),
    holder: "mcp-test",
    now: () => clock.now,
  });
  return { ...created, runs };
}

describe("the wake rate, per member, across processes", () => {
  it("notify processes racing never wake the member more than the policy allows; the rest are held", async () => {
    const { team, send } = await setup();
    const log = path.join(work.dir, "queued.log");
    const codex = fakeEngine(path.join(work.dir, "bin"), "codex", `echo "$*" >> "${log}"`);
    const env = { ...process.env, MUSTER_TEAM_DIR: work.teamDir, MUSTER_CODEX_BIN: codex };
    const turn = JSON.stringify({ type: "agent-turn-complete", "thread-id": THREAD });
    const notify = () =>
      new Promise<void>((resolve, reject) =>
        execFile(process.execPath, [NOTIFY, turn], { env, cwd: work.dir }, (error) =>
          error ? reject(error) : resolve(),
        ),
      );
    const ids: string[] = [];
    // Each turn's end is a fresh process with nothing counted in memory; two end at once.
    for (let round = 0; round < 9; round += 1) {
      ids.push(await send(`task ${round}`));
      await Promise.all([notify(), notify()]);
    }
    const queued = readFileSync(log, "utf8").trim().split("\n");
    expect(queued.length).toBeLessThanOrEqual(DEFAULT_WAKE_POLICY.maxWakes);
    const marks = await Promise.all(ids.map((id) => entry(team, id)));
    // Every message either woke the member or was held, and the sender can read which.
    for (const mark of marks) expect(mark?.phases.woke ?? mark?.wakeHeld).toBeDefined();
    const held = marks.filter((mark) => !mark?.phases.woke);
    expect(held.length).toBeGreaterThanOrEqual(ids.length - DEFAULT_WAKE_POLICY.maxWakes);
    expect(held[0]?.wakeHeld).toMatchObject({
      how: "codex-queue",
      reason: "rate-limited",
      words: "6 wakes in the last minute",
    });
  });

  it("a held wake is marked with when it wakes again, and is woken after the window", async () => {
    const { team, clock, send } = await setup();
    const own = waker(team, clock);
    const ids: string[] = [];
    for (let index = 0; index < 7; index += 1) {
      ids.push(await send(`task ${index}`));
      await own.sweep();
      clock.now += 1_000;
    }
    expect(own.runs).toHaveLength(6);
    const last = ids.at(-1)!;
    const held = await entry(team, last);
    expect(held?.phases.woke).toBeUndefined();
    const first = Date.parse((await entry(team, ids[0]!))!.phases.woke!.at);
    expect(Date.parse(held!.wakeHeld!.retryAfter)).toBe(first + 60_000);
    // Sweeps inside the window leave it held; the first one past it wakes it.
    await own.sweep();
    expect(own.runs).toHaveLength(6);
    clock.now = first + 60_000;
    expect(await own.sweep()).toBe(1);
    expect(own.runs.at(-1)?.at(-1)).toContain("task 6");
    expect((await entry(team, last))?.phases.woke).toMatchObject({ how: "codex-queue" });
  });

  it("a second process sees the rate the first used up (a shared count, not its own)", async () => {
    const { team, clock, send } = await setup();
    const one = waker(team, clock);
    for (let index = 0; index < 6; index += 1) {
      await send(`task ${index}`);
      await one.sweep();
    }
    const other = waker(team, clock);
    const id = await send("one more");
    expect(await other.sweep()).toBe(0);
    expect(other.runs).toEqual([]);
    expect((await entry(team, id))?.wakeHeld?.reason).toBe("rate-limited");
  });
});

describe("a waker's own claim", () => {
  it("is not woken again once past the old 60 s window, only past WAKE_CLAIM_MS", async () => {
    const { team, clock, send } = await setup();
    const own = waker(team, clock);
    await send("CI is red");
    expect(await own.sweep()).toBe(1);
    // A minute on, another mail wakes the member; the first, still unread, stays claimed.
    clock.now += 61_000;
    await send("and the docs");
    expect(await own.sweep()).toBe(1);
    expect(own.runs.at(-1)?.at(-1)).toContain("and the docs");
    expect(await own.sweep()).toBe(0);
    expect(own.runs).toHaveLength(2);
    // Past WAKE_CLAIM_MS, unread mail may wake again: both, in one line.
    clock.now += WAKE_CLAIM_MS + 1_000;
    expect(await own.sweep()).toBe(1);
    expect(own.runs.at(-1)?.at(-1)).toContain("2 messages");
  });
});

describe("stopping a waker", () => {
  it("awaits the sweep in flight: its woke mark is written before stop resolves", async () => {
    const { team, send } = await setup();
    let started = false;
    const stop = startCodexWaker({
      roster: async () => team,
      env: { HOME: "/home/ann" },
      codexFor: async () => ["codex"],
      holder: "mcp-stop",
      intervalMs: 20,
      run: async () => {
        started = true;
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { status: 0 };
      },
    });
    const id = await send("CI is red");
    await eventually(
      () => started,
      (yes) => yes,
      "the queue started",
    );
    await stop();
    expect((await entry(team, id))?.phases.woke).toMatchObject({ how: "codex-queue" });
  });
});
