// Takeover races found by an adversarial review (issue #11): stalls and fresh creators at chosen operations.
import { describe, expect, it } from "vitest";
import { memoryFs } from "../test/memory-fs.js";
import { stallAfterRead } from "../test/stall.js";
import { type Claim, type ClaimVerdict, openRoster, type ProcessFacts } from "./index.js";

const DIR = "/teams/attack";
const START = Date.parse("2026-11-30T12:00:00.000Z");

const member = (id: string, pid: number, label = "lead") => ({
  id,
  label,
  agent: "pi",
  pid,
  pidStart: "1",
  watching: { armed: true, wake: false },
  liveness: "heartbeat" as const,
});

async function world() {
  let now = START;
  let died = false;
  const memory = memoryFs({ uid: 1, now: () => now });
  const processes: ProcessFacts = {
    alive: (pid) => (pid === 666 && died ? "dead" : "alive"),
    place: () => "here",
  };
  const open = async (fs: typeof memory.fs) => {
    const opened = await openRoster({ dir: DIR, fs, clock: () => now, processes });
    if (!opened.ok) throw new Error(opened.error);
    return opened.roster;
  };
  const roster = await open(memory.fs);
  await roster.join(member("dead-one", 666));
  await roster.join(member("sender", 20, "sender"));
  const sent = await roster.send({ from: "sender", to: "lead", body: "for whoever leads" });
  if (!sent.ok) throw new Error("send failed");
  died = true;
  now += 1_000;
  return {
    memory,
    roster,
    open,
    sentId: sent.id,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("attack: cleared, then the key comes free again before the taker's next round", () => {
  it("the taker wins on its next round: the dead holder is still retired and its mail forwarded", async () => {
    const { memory, roster, open, sentId } = await world();
    // r1 moves dead-one's claim aside; before r1 creates its own, f1 joins `lead` (fresh create).
    // r1 loses that round (cleared = dead-one); before r1's next round f1 renames itself to
    // `other`, freeing `lead`. r1's next exclusive create wins: ok, with no `took`.
    let links = 0;
    const racing = {
      ...memory.fs,
      async link(from: string, to: string) {
        if (to.endsWith("/labels/lead.json")) {
          links += 1;
          if (links === 2) await roster.join(member("f1", 21));
          if (links === 3) await roster.join(member("f1", 21, "other"));
        }
        return memory.fs.link(from, to);
      },
    };
    const mover = await (await open(racing)).join(member("r1", 22));
    expect(links).toBe(3);
    expect(mover).toMatchObject({ ok: true, label: "lead" });
    expect(await roster.readClaim("labels", "lead")).toMatchObject({ holder: "r1" });
    // Mail addressed to `lead` waited for dead-one: it must reach whoever holds `lead` (r1) or f1
    // (who held it for a moment); and dead-one must not be left as a member naming `lead`.
    const r1 = await roster.receive("r1");
    const f1 = await roster.receive("f1");
    const got = [
      ...(r1.ok ? r1.messages.map((m) => m.id) : []),
      ...(f1.ok ? f1.messages.map((m) => m.id) : []),
    ];
    expect(got, "dead-one's unread mail forwarded to r1 or f1").toContain(sentId);
    const team = await roster.read();
    expect(team.ok && team.members.map((entry) => entry.id).sort()).toEqual(["f1", "r1", "sender"]);
  });
});

describe("attack: the winner of the freed key is a bare claim, no join that retires anyone", () => {
  it("the dead holder's mail is not left to expire while its label has a holder", async () => {
    const { memory, roster, open, sentId } = await world();
    // f1 is a fresh joiner caught right after its exclusive create (its claim is on disk, its
    // folders and record not yet): exactly the moment a real concurrent join is in.
    let links = 0;
    const racing = {
      ...memory.fs,
      async link(from: string, to: string) {
        if (to.endsWith("/labels/lead.json") && ++links === 2)
          await roster.claim({
            space: "labels",
            key: "lead",
            holder: "f1",
            judge: async () => ({ free: false, held: "x" }),
          });
        return memory.fs.link(from, to);
      },
    };
    const mover = await (await open(racing)).join(member("r1", 22));
    expect(mover).toMatchObject({ ok: false, reason: "label-held", holderId: "f1" });
    // f1's join now goes on (its own claim, refreshed), making its folders and record. Its claim
    // was told of dead-one, but a bare claim retires nobody: dead-one is still there, with its mail.
    expect(await roster.join(member("f1", 21))).toMatchObject({ ok: true, label: "lead" });
    const before = await roster.read();
    expect(before.ok && before.members.map((entry) => entry.id)).toContain("dead-one");
    // Prune forgets the dead holder, and its unread mail goes to whoever holds its label now.
    expect(await roster.prune()).toMatchObject({ removed: ["dead-one"], expiredMail: [] });
    expect(await roster.receive("f1")).toMatchObject({
      ok: true,
      messages: [{ id: sentId, forwardedFrom: { id: "dead-one", label: "lead" } }],
    });
    expect(memory.files(`${DIR}/expired`)).toEqual([]);
  });
});

describe("attack: an unreadable claim is quarantined without a compare", () => {
  it("a taker stalled after its fence over a junk claim file does not quarantine the winner's claim", async () => {
    let now = START;
    const memory = memoryFs({ uid: 1, now: () => now });
    const processes: ProcessFacts = { alive: () => "unknown" };
    const opened = await openRoster({ dir: DIR, fs: memory.fs, clock: () => now, processes });
    if (!opened.ok) throw new Error(opened.error);
    const roster = opened.roster;
    const held = async (): Promise<ClaimVerdict<string>> => ({ free: false, held: "live" });
    memory.put(`${DIR}/labels/lead.json`, "{not json");
    // r1 judged the file unreadable, took the lock, read its lock back (still its own), and
    // stalls 6 s before its quarantine rename; r2 breaks the stale lock, quarantines the junk and
    // creates its own claim: ok. r1 resumes and moves whatever is at labels/lead.json away.
    let second: unknown;
    const stalling = stallAfterRead(memory.fs, "/locks/labels.lead.lock", async () => {
      now += 6_000;
      second = await roster.claim({ space: "labels", key: "lead", holder: "r2", judge: held });
    });
    const slow = await openRoster({ dir: DIR, fs: stalling.fs, clock: () => now, processes });
    if (!slow.ok) throw new Error(slow.error);
    const first = await slow.roster.claim({
      space: "labels",
      key: "lead",
      holder: "r1",
      judge: held,
    });
    expect(stalling.stalled()).toBe(true);
    const onDisk = (await roster.readClaim("labels", "lead")) as Claim;
    const told = [
      ["r1", first],
      ["r2", second],
    ]
      .filter(([, result]) => (result as { ok: boolean }).ok)
      .map(([id]) => id);
    expect({
      told,
      onDisk: onDisk.holder,
      quarantined: memory.files(`${DIR}/quarantine`).length,
    }).toMatchObject({
      told: [onDisk.holder],
    });
  });
});

describe("attack: a joiner suspended between its claim and its record (laptop lid, Ctrl-Z)", () => {
  it("is not told ok while another holds the label, and a live holder is never retired", async () => {
    let now = START;
    const memory = memoryFs({ uid: 1, now: () => now });
    // Every process is alive: nobody here is dead.
    const processes: ProcessFacts = { alive: () => "alive", place: () => "here" };
    const open = async (fs: typeof memory.fs) => {
      const opened = await openRoster({ dir: DIR, fs, clock: () => now, processes });
      if (!opened.ok) throw new Error(opened.error);
      return opened.roster;
    };
    const roster = await open(memory.fs);
    await roster.join(member("sender", 20, "sender"));
    const gate = () => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      return { open, opened };
    };
    const aPaused = gate();
    const aGo = gate();
    const rPaused = gate();
    const rGo = gate();
    let aStalled = false;
    let rStalled = false;
    // a1 has created its claim on `lead` and is suspended as it makes its mailbox, for 11 s.
    const aFs = {
      ...memory.fs,
      async mkdir(path: string, mode: number) {
        if (!aStalled && path.includes("/mail/a1")) {
          aStalled = true;
          aPaused.open();
          await aGo.opened;
        }
        return memory.fs.mkdir(path, mode);
      },
    };
    // r1 finds the claim 11 s old with no record behind it (an "orphan") and takes it over; it
    // is slowed as it writes its own record, while a1 wakes up and finishes its join.
    const rFs = {
      ...memory.fs,
      async rename(from: string, to: string) {
        if (!rStalled && to.endsWith("/sessions/r1.json")) {
          rStalled = true;
          rPaused.open();
          await rGo.opened;
        }
        return memory.fs.rename(from, to);
      },
    };
    const aJoin = (await open(aFs)).join(member("a1", 31));
    await aPaused.opened;
    now += 11_000;
    const rJoin = (await open(rFs)).join(member("r1", 32));
    await Promise.race([rPaused.opened, rJoin]);
    expect(rStalled, "r1 reached its record write").toBe(true);
    aGo.open();
    const a = await aJoin;
    rGo.open();
    const r = await rJoin;
    const claim = (await roster.readClaim("labels", "lead")) as Claim;
    const team = await roster.read();
    const members = team.ok ? team.members.map((entry) => entry.id).sort() : [];
    const told = [
      ["a1", a],
      ["r1", r],
    ]
      .filter(([, result]) => (result as { ok: boolean }).ok)
      .map(([id]) => id);
    expect(
      { told, claim: claim.holder, a1StillAMember: members.includes("a1") },
      JSON.stringify({ a, r }),
    ).toEqual({ told: [claim.holder], claim: claim.holder, a1StillAMember: told.includes("a1") });
  });
});

describe("a takeover that loses the freed key to a fresh creator", () => {
  it("the dead holder is still retired: its unread mail goes to whoever holds the label now", async () => {
    const { memory, roster, open, sentId } = await world();
    // r1 moves dead-one's claim aside; in that moment, before r1 creates its own, f1 joins and
    // creates the claim fresh. r1 loses the label, and retires the dead holder to f1.
    let fresh: unknown;
    let links = 0;
    const racing = {
      ...memory.fs,
      async link(from: string, to: string) {
        if (to.endsWith("/labels/lead.json") && ++links === 2)
          fresh = await roster.join(member("f1", 21));
        return memory.fs.link(from, to);
      },
    };
    const mover = await (await open(racing)).join(member("r1", 22));
    // f1's create filled the moment the key was free: it is told the claim it replaced.
    expect(fresh).toMatchObject({
      ok: true,
      label: "lead",
      took: { from: "dead-one", reason: "dead", forwarded: 1 },
    });
    expect(mover).toMatchObject({ ok: false, reason: "label-held", holderId: "f1" });
    expect(await roster.readClaim("labels", "lead")).toMatchObject({ holder: "f1" });
    expect(await roster.receive("f1")).toMatchObject({
      ok: true,
      messages: [{ id: sentId, forwardedFrom: { id: "dead-one", label: "lead" } }],
    });
    const team = await roster.read();
    expect(team.ok && team.members.map((entry) => entry.id).sort()).toEqual(["f1", "sender"]);
  });
});
