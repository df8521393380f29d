// The general exclusive claim: one holder per key, takeover only of a holder the judge frees,
// fenced against a holder that stalls inside the takeover lock, and compare-then-remove.
import { describe, expect, it } from "vitest";
import { memoryFs } from "../test/memory-fs.js";
import { stallAfterRead } from "../test/stall.js";
import { type Claim, type ClaimVerdict, openRoster, type ProcessFacts } from "./index.js";

const DIR = "/teams/claims";
const START = Date.parse("2026-11-30T12:00:00.000Z");

async function setup(processes: ProcessFacts = { alive: () => "unknown" }) {
  let now = START;
  const memory = memoryFs({ uid: 1, now: () => now });
  const opened = await openRoster({ dir: DIR, fs: memory.fs, clock: () => now, processes });
  if (!opened.ok) throw new Error(opened.error);
  return {
    memory,
    roster: opened.roster,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const held = async (): Promise<ClaimVerdict<string>> => ({ free: false, held: "in use" });
const dead = async (): Promise<ClaimVerdict<string>> => ({ free: true, reason: "dead" });

describe("the general claim", () => {
  it("one holder per key, compared case-insensitively; the loser hears the judge", async () => {
    const { roster } = await setup();
    const first = await roster.claim({ space: "labels", key: "Card-7", holder: "s1", judge: held });
    expect(first).toMatchObject({ ok: true, claim: { key: "Card-7", holder: "s1" } });
    expect(
      await roster.claim({ space: "labels", key: "CARD-7", holder: "s2", judge: held }),
    ).toMatchObject({ ok: false, reason: "held", held: "in use", current: { holder: "s1" } });
    expect(await roster.readClaim("labels", "card-7")).toMatchObject({ holder: "s1" });
  });

  it("takes over a holder the judge frees, and says from whom", async () => {
    const { roster } = await setup();
    await roster.claim({ space: "labels", key: "k", holder: "s1", judge: held });
    const taken = await roster.claim({ space: "labels", key: "k", holder: "s2", judge: dead });
    expect(taken).toMatchObject({
      ok: true,
      claim: { holder: "s2" },
      took: { from: { holder: "s1" }, reason: "dead" },
    });
  });

  it("releases only what the holder holds", async () => {
    const { roster } = await setup();
    await roster.claim({ space: "labels", key: "k", holder: "s1", judge: held });
    expect(await roster.releaseClaim("labels", "k", "s2")).toBe(false);
    expect(await roster.readClaim("labels", "k")).toMatchObject({ holder: "s1" });
    expect(await roster.releaseClaim("labels", "K", "s1")).toBe(true);
    expect(await roster.readClaim("labels", "k")).toBeUndefined();
  });

  it("a key that could name a path is refused before it touches one", async () => {
    const { roster, memory } = await setup();
    for (const key of ["../x", "a/b", ".hidden", ""]) {
      expect(await roster.claim({ space: "labels", key, holder: "s1", judge: held })).toMatchObject(
        { ok: false, reason: "bad-key" },
      );
    }
    expect(memory.files(DIR)).toEqual([]);
  });

  it("a holder stalled inside the takeover lock past its break commits nothing: one winner", async () => {
    const { roster, advance } = await setup();
    await roster.claim({ space: "labels", key: "lead", holder: "dead-one", judge: held });
    let second: unknown;
    let calls = 0;
    // The first reclaimer's judge is asked twice; the second time it is under the lock, and it
    // stalls there 6 s while a second reclaimer breaks the "stale" lock and takes the key.
    const stalling = async (current: Claim): Promise<ClaimVerdict<string>> => {
      calls += 1;
      if (calls === 2) {
        advance(6_000);
        second = await roster.claim({ space: "labels", key: "lead", holder: "r2", judge: dead });
      }
      return current.holder === "dead-one"
        ? { free: true, reason: "dead" }
        : { free: false, held: "live" };
    };
    const first = await roster.claim({
      space: "labels",
      key: "lead",
      holder: "r1",
      judge: stalling,
    });
    expect(second).toMatchObject({ ok: true, claim: { holder: "r2" } });
    expect(first).toMatchObject({ ok: false });
    expect(await roster.readClaim("labels", "lead")).toMatchObject({ holder: "r2" });
  });

  it("a holder stalled after its fence check, before its commit, does not overwrite the winner", async () => {
    const { roster, memory, advance } = await setup();
    await roster.claim({ space: "labels", key: "lead", holder: "dead-one", judge: held });
    // r1 reads its lock (still its own), then stalls 6 s before it commits, while r2 breaks the
    // lock, which now looks stale, and takes the key over. r1 resumes with an old answer in hand.
    let second: unknown;
    const stalling = stallAfterRead(memory.fs, "/locks/labels.lead.lock", async () => {
      advance(6_000);
      second = await roster.claim({ space: "labels", key: "lead", holder: "r2", judge: dead });
    });
    const stalled = stalling.stalled;
    const slow = await openRoster({
      dir: DIR,
      fs: stalling.fs,
      clock: () => START + (stalled() ? 6_000 : 0),
      processes: { alive: () => "unknown" },
    });
    if (!slow.ok) throw new Error(slow.error);
    // r1's judge frees only the dead holder it judged: r2 is alive.
    const deadOne = async (current: Claim): Promise<ClaimVerdict<string>> =>
      current.holder === "dead-one"
        ? { free: true, reason: "dead" }
        : { free: false, held: "live" };
    const first = await slow.roster.claim({
      space: "labels",
      key: "lead",
      holder: "r1",
      judge: deadOne,
    });
    expect(stalled()).toBe(true);
    expect(second).toMatchObject({ ok: true, claim: { holder: "r2" } });
    expect(first).toMatchObject({ ok: false, reason: "held", current: { holder: "r2" } });
    expect(await roster.readClaim("labels", "lead")).toMatchObject({ holder: "r2" });
  });

  it("a claim file that is not a claim is moved to quarantine, then claimed", async () => {
    const { roster, memory } = await setup();
    memory.put(`${DIR}/labels/k.json`, "{not json");
    expect(
      await roster.claim({ space: "labels", key: "k", holder: "s1", judge: held }),
    ).toMatchObject({ ok: true, took: { from: undefined, reason: "unreadable" } });
    expect(memory.files(`${DIR}/quarantine`)).toHaveLength(1);
  });

  // A process killed inside a takeover leaves its lock behind. Only proof of its death breaks it
  // before it is old: pid and start time, on this host. No word about it waits the 5 s out.
  const facts: ProcessFacts = {
    alive: (pid, start) =>
      pid === 41 && start === "100" ? "dead" : pid === 42 ? "alive" : "unknown",
    place: () => "here",
    self: () => ({ pid: 7, pidStart: "70" }),
  };
  const lock = (owner: Record<string, unknown>) =>
    `${JSON.stringify({ v: 1, holder: "x", at: new Date(START).toISOString(), token: "t1", ...owner })}\n`;
  it.each([
    ["its process proven dead", { pid: 41, pidStart: "100", place: "here" }, true],
    ["its process alive", { pid: 42, pidStart: "200", place: "here" }, false],
    ["its process unknown (no start time)", { pid: 43, place: "here" }, false],
    ["a process on another host", { pid: 41, pidStart: "100", place: "elsewhere" }, false],
    ["no process named (an older lock)", {}, false],
  ])("a fresh lock left by %s: broken at once: %s", async (_name, owner, broken) => {
    const { roster, memory, advance } = await setup(facts);
    await roster.claim({ space: "labels", key: "k", holder: "dead-one", judge: held });
    memory.put(`${DIR}/locks/labels.k.lock`, lock(owner));
    advance(1_000);
    const taken = await roster.claim({ space: "labels", key: "k", holder: "s2", judge: dead });
    expect(taken).toMatchObject(broken ? { ok: true } : { ok: false, reason: "busy" });
    if (broken) return;
    advance(5_000); // old now: broken whoever left it
    expect(
      await roster.claim({ space: "labels", key: "k", holder: "s2", judge: dead }),
    ).toMatchObject({ ok: true });
  });

  it("a lock names the process that took it", async () => {
    const { roster, memory } = await setup(facts);
    await roster.claim({ space: "labels", key: "k", holder: "s1", judge: held });
    let seen: Record<string, unknown> | undefined;
    const peek = async (): Promise<ClaimVerdict<string>> => {
      seen = memory.json(`${DIR}/locks/labels.k.lock`);
      return { free: true, reason: "dead" };
    };
    await roster.claim({ space: "labels", key: "k", holder: "s2", judge: peek });
    expect(seen).toMatchObject({ pid: 7, pidStart: "70", place: "here" });
  });
});

describe("a claim held by a process (heldBy, maxAgeMs): the roster's own judge", () => {
  const facts = (deadPids: number[]): ProcessFacts => ({
    alive: (pid) => (deadPids.includes(pid) ? "dead" : "alive"),
  });
  const by = (pid: number) => ({ pid, start: "100" });

  it.each([
    {
      name: "held while its process lives",
      dead: [],
      advance: 0,
      maxAgeMs: 60_000,
      free: undefined,
    },
    {
      name: "free once its process is proven dead",
      dead: [11],
      advance: 0,
      maxAgeMs: 60_000,
      free: "dead",
    },
    {
      name: "free once past its age",
      dead: [],
      advance: 60_001,
      maxAgeMs: 60_000,
      free: "expired",
    },
    {
      name: "never old without an age",
      dead: [],
      advance: 9e9,
      maxAgeMs: undefined,
      free: undefined,
    },
  ])("$name", async ({ dead, advance: ms, maxAgeMs, free }) => {
    const { roster, advance } = await setup(facts(dead));
    const first = await roster.claim({
      space: "wakes",
      key: "k",
      holder: "h1",
      heldBy: by(11),
      maxAgeMs,
    });
    expect(first).toMatchObject({ ok: true, claim: { data: { pid: 11, start: "100" } } });
    advance(ms);
    const second = await roster.claim({
      space: "wakes",
      key: "k",
      holder: "h2",
      heldBy: by(12),
      maxAgeMs,
    });
    if (free)
      expect(second).toMatchObject({ ok: true, took: { from: { holder: "h1" }, reason: free } });
    else expect(second).toMatchObject({ ok: false, reason: "held", current: { holder: "h1" } });
  });

  it("a claim dated ahead of the clock by more than its age is old too (a clock that jumped)", async () => {
    const { roster, advance } = await setup(facts([]));
    advance(120_000);
    await roster.claim({
      space: "wakes",
      key: "k",
      holder: "h1",
      heldBy: by(11),
      maxAgeMs: 60_000,
    });
    advance(-120_000);
    const second = await roster.claim({
      space: "wakes",
      key: "k",
      holder: "h2",
      heldBy: by(12),
      maxAgeMs: 60_000,
    });
    expect(second).toMatchObject({ ok: true, took: { reason: "expired" } });
  });

  it("keeps the caller's data beside the process", async () => {
    const { roster } = await setup(facts([]));
    const taken = await roster.claim({
      space: "listeners",
      key: "k",
      holder: "h1",
      heldBy: by(11),
      data: { home: "/h" },
    });
    expect(taken).toMatchObject({
      ok: true,
      claim: { data: { home: "/h", pid: 11, start: "100" } },
    });
  });
});
