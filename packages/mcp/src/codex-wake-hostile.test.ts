// A member's wakes survive what another process can do to the `wakes` space or the store: slots
// dated years ahead (a clock that jumped, a planted file) neither hold the member nor outlive a
// prune, a store that throws mid-wake leaves no claim behind, and a sender is told only the later
// of a held and a failed wake. A real team folder; an injected clock; a fake `codex` runner.
import { readdirSync } from "node:fs";
import path from "node:path";
import { wakeRate } from "@muster/core";
import { nodeFs, processFacts, processStart } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import { afterEach, describe, expect, it } from "vitest";
import { joinPeer, roster, type Scratch, scratch } from "../test/helpers.js";
import { type CodexRunner, createCodexWaker } from "./_codex-wake.js";

const THREAD = "01a22ae4-26be-7480-acf3-78282d1c9f00";
const MEMBER = `codex-${THREAD}`;
const FAR = Date.parse("9999-01-01T00:00:00Z");
let work: Scratch;
afterEach(() => work?.cleanup());

async function open(clock: () => number): Promise<Roster> {
  const opened = await openRoster({
    dir: work.teamDir,
    fs: nodeFs,
    clock,
    processes: processFacts,
  });
  if (!opened.ok) throw new Error(opened.error);
  return opened.roster;
}

/** A team with a wakeable Codex member (kept live by this process) and a peer; `clock` moves. */
async function setup() {
  work = scratch();
  const first = await roster(work.teamDir);
  const clock = { now: Date.now() };
  const team = await open(() => clock.now);
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

const entry = async (team: Roster, id: string) => {
  const receipt = await team.receipt(id);
  return receipt.ok ? receipt.recipients.find((each) => each.id === MEMBER) : undefined;
};

describe("hostile wake slots and a throwing store", () => {
  it("slots dated years ahead do not hold the member, and a prune removes them", async () => {
    const { team, clock, send } = await setup();
    const ahead = await open(() => FAR);
    for (let slot = 0; slot < 6; slot += 1)
      expect((await ahead.takeWakeSlot(MEMBER, "planted", wakeRate())).ok).toBe(true);
    const awake = waker(team, clock);
    const id = await send("hello");
    expect(await awake.sweep()).toBe(1);
    expect((await entry(team, id))?.phases.woke).toBeDefined();
    expect((await entry(team, id))?.wakeHeld).toBeUndefined();
    const pruned = await team.prune();
    if (!pruned.ok) throw new Error(pruned.error);
    const left = readdirSync(path.join(work.teamDir, "wakes")).filter((name) =>
      name.startsWith("rate."),
    );
    // The planted six are gone; the slot the real wake took stays for its window.
    expect(left).toHaveLength(1);
  });

  it("a store that throws between the claims and the queue leaves no claim: the next sweep wakes", async () => {
    const { team, clock, send } = await setup();
    let down = true;
    const flaky = new Proxy(team, {
      get(target, name) {
        if (name === "takeWakeSlot" && down)
          return async () => {
            throw new Error("store down");
          };
        const value = Reflect.get(target, name, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as Roster;
    const awake = waker(flaky, clock);
    const id = await send("hello");
    expect(await awake.sweep()).toBe(0);
    down = false;
    clock.now += 1_000;
    expect(await awake.sweep()).toBe(1);
    expect((await entry(team, id))?.phases.woke).toBeDefined();
  });

  it("a wake held, then failed past the window: the sender is told the failure, not the hold", async () => {
    const { team, clock, send } = await setup();
    let failing = false;
    const awake = waker(team, clock, async () =>
      failing ? { status: 1, error: "boom" } : { status: 0 },
    );
    for (let round = 0; round < 6; round += 1) {
      await send(`m${round}`);
      expect(await awake.sweep()).toBe(1);
    }
    const id = await send("seventh");
    expect(await awake.sweep()).toBe(0);
    expect((await entry(team, id))?.wakeHeld).toBeDefined();
    clock.now += 61_000;
    failing = true;
    expect(await awake.sweep()).toBe(0);
    const report = await import("@muster/core").then(({ waitReport }) =>
      entry(team, id).then((each) =>
        waitReport([{ id: MEMBER, label: "coder" }], each ? [each] : [], "delivered"),
      ),
    );
    expect(report.recipients[0]?.wakeFailed).toBe("boom");
    expect(report.recipients[0]?.wakeHeld).toBeUndefined();
  });
});
