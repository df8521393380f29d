// Path leases on the general claim: check-then-take as one step, renewal by the holder, release
// of one's own only, and leases that lapse with their holder (dead, expired, left): a read says so
// and changes nothing; the next take clears them.
import { describe, expect, it } from "vitest";
import { memoryFs } from "../test/memory-fs.js";
import {
  type JoinInput,
  type LeaseEntry,
  type LeaseHolds,
  openRoster,
  type ProcessFact,
} from "./index.js";

const DIR = "/teams/leases";
const START = Date.parse("2026-11-30T12:00:00.000Z");

async function setup() {
  let now = START;
  const processes = new Map<number, ProcessFact>();
  const memory = memoryFs({ uid: 1, now: () => now });
  const opened = await openRoster({
    dir: DIR,
    fs: memory.fs,
    clock: () => now,
    processes: { alive: (pid: number) => processes.get(pid) ?? "unknown" },
  });
  if (!opened.ok) throw new Error(opened.error);
  return {
    memory,
    processes,
    roster: opened.roster,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const member = (id: string, label: string, pid: number): JoinInput => ({
  id,
  label,
  agent: "pi",
  pid,
  pidStart: "1",
  watching: { armed: true, wake: false },
  liveness: "process",
});

// The rule the composers hand in is core's; these tests keep a plain one: TTL, then the holder.
const holds: LeaseHolds = (lease, now) =>
  now < lease.expiresAt && !["dead", "expired", "absent"].includes(lease.holderState);
const noOverlapWithOthers =
  (holderId: string, pattern: string) => (holding: readonly LeaseEntry[]) => {
    const clash = holding.find(
      (lease) =>
        lease.holderId !== holderId &&
        (lease.pattern.startsWith(pattern) || pattern.startsWith(lease.pattern)),
    );
    return clash ? { ok: false as const, refusal: clash } : { ok: true as const };
  };
const lease = (holderId: string, holder: string, pattern: string, ttlMs = 60_000) => ({
  holderId,
  holder,
  pattern,
  mode: "exclusive" as const,
  reason: "editing",
  ttlMs,
});

describe("path leases", () => {
  it("a conflict named by the rule is refused and nothing is written", async () => {
    const { roster, processes } = await setup();
    processes.set(11, "alive").set(12, "alive");
    await roster.join(member("s1", "alice", 11));
    await roster.join(member("s2", "bob", 12));
    const first = await roster.takeLease(
      lease("s1", "alice", "src"),
      holds,
      noOverlapWithOthers("s1", "src"),
    );
    expect(first).toMatchObject({ ok: true, renewed: false, lease: { holder: "alice" } });
    const second = await roster.takeLease(
      lease("s2", "bob", "src/a.ts"),
      holds,
      noOverlapWithOthers("s2", "src/a.ts"),
    );
    expect(second).toMatchObject({ ok: false, reason: "refused", refusal: { holder: "alice" } });
    const read = await roster.leases(holds);
    expect(read.ok && read.leases.map((entry) => entry.pattern)).toEqual(["src"]);
  });

  it("the holder renews its own lease: one file, a later expiry", async () => {
    const { roster, processes, advance, memory } = await setup();
    processes.set(11, "alive");
    await roster.join(member("s1", "alice", 11));
    const first = await roster.takeLease(lease("s1", "alice", "src"), holds, () => ({ ok: true }));
    advance(30_000);
    const again = await roster.takeLease(lease("s1", "alice", "src"), holds, () => ({ ok: true }));
    expect(again).toMatchObject({ ok: true, renewed: true });
    if (!first.ok || !again.ok) throw new Error("expected both to be taken");
    expect(again.lease.expiresAt - first.lease.expiresAt).toBe(30_000);
    expect(memory.files(`${DIR}/leases/`).filter((name) => name.endsWith(".json"))).toHaveLength(1);
  });

  it.each([
    ["its process died", (processes: Map<number, ProcessFact>) => processes.set(11, "dead")],
    ["it left", () => undefined],
  ])(
    "a lease lapses on the next read when its holder %s, and stays in place",
    async (_case, kill) => {
      const { roster, processes } = await setup();
      processes.set(11, "alive");
      await roster.join(member("s1", "alice", 11));
      await roster.takeLease(lease("s1", "alice", "src"), holds, () => ({ ok: true }));
      kill(processes);
      if (_case === "it left") await roster.leave("s1");
      const read = await roster.leases(holds);
      expect(read).toMatchObject({
        ok: true,
        leases: [],
        lapsed: [{ pattern: "src" }],
        released: [],
      });
      expect(await roster.leases(holds)).toEqual(read);
    },
  );

  it("a read never changes state: a lapsed lease stays in place until the next take clears it", async () => {
    const { roster, processes, memory } = await setup();
    processes.set(11, "alive");
    await roster.join(member("s1", "alice", 11));
    await roster.join(member("s2", "bob", 12));
    await roster.takeLease(lease("s1", "alice", "src"), holds, () => ({ ok: true }));
    processes.set(11, "dead");
    const files = () => memory.files(`${DIR}/leases`).filter((name) => name.endsWith(".json"));
    const before = files().map((file) => memory.json(file));
    for (let round = 0; round < 3; round += 1) await roster.leases(holds);
    expect(files().map((file) => memory.json(file))).toEqual(before);
    expect(before).toHaveLength(1);
    const taken = await roster.takeLease(lease("s2", "bob", "src"), holds, () => ({ ok: true }));
    expect(taken).toMatchObject({ ok: true });
    const after = await roster.leases(holds);
    expect(after).toMatchObject({ ok: true, leases: [{ holder: "bob" }], lapsed: [] });
    expect(files()).toHaveLength(1);
  });

  it("a holder the roster cannot judge (unknown process) keeps its lease; its TTL still ends it", async () => {
    const { roster, advance } = await setup();
    await roster.join(member("s1", "alice", 11));
    await roster.takeLease(lease("s1", "alice", "src", 10_000), holds, () => ({ ok: true }));
    let read = await roster.leases(holds);
    expect(read.ok && read.leases.map((entry) => entry.holderState)).toEqual(["live"]);
    advance(10_000);
    read = await roster.leases(holds);
    expect(read).toMatchObject({ ok: true, leases: [], lapsed: [{ pattern: "src" }] });
  });

  it("releases only the holder's own leases", async () => {
    const { roster, processes } = await setup();
    processes.set(11, "alive").set(12, "alive");
    await roster.join(member("s1", "alice", 11));
    await roster.join(member("s2", "bob", 12));
    await roster.takeLease(lease("s1", "alice", "src"), holds, () => ({ ok: true }));
    await roster.takeLease(lease("s2", "bob", "docs"), holds, () => ({ ok: true }));
    expect(await roster.releaseLeases("s2", ["src"])).toEqual({ ok: true, released: [] });
    expect(await roster.releaseLeases("s2", "all")).toEqual({ ok: true, released: ["docs"] });
    const read = await roster.leases(holds);
    expect(read.ok && read.leases.map((entry) => entry.holder)).toEqual(["alice"]);
  });

  it("a planted file that is not a lease is named and skipped, never fatal", async () => {
    const { roster, memory, processes } = await setup();
    processes.set(11, "alive");
    await roster.join(member("s1", "alice", 11));
    await roster.takeLease(lease("s1", "alice", "src"), holds, () => ({ ok: true }));
    memory.put(
      `${DIR}/leases/lforged.json`,
      JSON.stringify({
        v: 1,
        key: "lforged",
        holder: "s9",
        at: new Date(START).toISOString(),
        token: "t",
        data: { pattern: 7 },
      }),
    );
    const read = await roster.leases(holds);
    expect(read).toMatchObject({ ok: true, leases: [{ pattern: "src" }] });
    expect(read.ok && read.warnings).toEqual(["leases/lforged.json is not a lease; skipped"]);
  });
});
