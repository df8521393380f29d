// One holder judged one way in every claim space (labels, cards, leases), on any store: a holder
// whose record cannot be read is unknown, never dead, until its record is older than the TTL; a
// member kept live by its process that dies long after it joined is gone at once, its claims free.
import { decideChange, memberEnd, ownerVerdict } from "@muster/core";
import type { JoinInput } from "@muster/roster";
import { describe, expect, it } from "vitest";
import type { ConformanceHarness } from "./harness.ts";
import { HOUR, type Kit, kits, leaseHolds, member, release } from "./kit.ts";

export function holderRules(harness: ConformanceHarness) {
  const kit = kits(harness);

  /** s1 (alice) holds its label, card c1 and a lease; s2 (bob) is the one who would take them. */
  async function holding(liveness: JoinInput["liveness"]) {
    const made = await kit();
    made.facts.set(11, "alive");
    made.facts.set(12, "alive");
    await made.roster.join(member("s1", "alice", 11, { liveness }));
    await made.roster.join(member("s2", "bob", 12, { liveness: "process" }));
    const alice = { label: "alice", id: "s1" };
    const board = made.roster.board({ ownerVerdict });
    await board.add((snapshot, id) =>
      decideChange(snapshot, alice, { kind: "add", id, title: "t" }),
    );
    const claimed = await board.change({
      card: "c1",
      actor: "s1",
      decide: (snapshot) => decideChange(snapshot, alice, { kind: "claim", card: "c1" }),
      after: "keep",
    });
    expect(claimed).toMatchObject({ ok: true, changed: true });
    const lease = {
      holderId: "s1",
      holder: "alice",
      pattern: "src/**",
      mode: "exclusive" as const,
    };
    const leased = await made.roster.takeLease({ ...lease, ttlMs: 3 * HOUR }, leaseHolds, () => ({
      ok: true,
    }));
    expect(leased).toMatchObject({ ok: true });
    return made;
  }

  /** What bob sees of alice's three claims: her card, her lease, and may he take her label? */
  async function claimsOf(made: Kit) {
    const read = await made.roster.board({ ownerVerdict }).read({ reader: "s2", decide: release });
    const leases = await made.roster.leases(leaseHolds);
    const label = await made.roster.join(member("s2", "alice", 12, { liveness: "process" }));
    return {
      label: label.ok ? "taken" : label.reason,
      card: read.ok && read.board.cards.get("c1")?.state,
      lease: leases.ok && leases.leases.map((each) => `${each.holder}:${each.holderState}`),
    };
  }
  const newer = (made: Kit) =>
    made.team.plant("sessions", "s1", `${JSON.stringify({ v: 2, id: "s1", label: "alice" })}\n`);

  describe(`holders on the ${harness.name} store`, () => {
    it("a holder whose record cannot be read keeps its label, card and lease while younger than the TTL", async () => {
      const made = await holding("heartbeat");
      await newer(made);
      made.advance(HOUR - 60_000);
      expect(await claimsOf(made)).toEqual({
        label: "label-held",
        card: "held",
        lease: ["alice:unknown"],
      });
    });

    it("once its record is older than the TTL, its claims are free in every space", async () => {
      const made = await holding("heartbeat");
      await newer(made);
      made.advance(HOUR + 60_000);
      expect(await claimsOf(made)).toEqual({ label: "taken", card: "open", lease: [] });
    });

    it("a member kept live by its process, joined hours ago, that dies: gone at once, its claims free", async () => {
      const made = await holding("process");
      made.advance(2 * HOUR);
      const before = await made.roster.read();
      expect(before.ok && before.members.find((each) => each.id === "s1")?.state).toBe("live");
      made.facts.set(11, "dead");
      const after = await made.roster.read();
      expect(after.ok && after.members.find((each) => each.id === "s1")).toMatchObject({
        state: "gone",
        reason: "process-dead",
      });
      expect(await claimsOf(made)).toEqual({ label: "taken", card: "open", lease: [] });
    });

    // Crashed or stopped, a dead holder is a dead holder: the mark says how it ended, not who
    // holds what. The mark stays until its member joins again (a resumed session writes anew).
    it.each([
      ["crashed (no mark)", undefined, "crashed"],
      ["stopped (muster stop's mark)", "stop", "stopped"],
      ["down (muster down's mark)", "down", "down"],
    ] as const)(
      "a holder %s: its claims free at once, the end told apart",
      async (_name, by, kind) => {
        const made = await holding("process");
        if (by) expect(await made.roster.markEnding("s1", by)).toEqual({ ok: true, marked: true });
        const marked = await made.roster.read();
        const live = marked.ok ? marked.members.find((each) => each.id === "s1") : undefined;
        expect(live?.state).toBe("live");
        expect(live && memberEnd(live)).toBeUndefined();
        made.facts.set(11, "dead");
        const after = await made.roster.read();
        const dead = after.ok ? after.members.find((each) => each.id === "s1") : undefined;
        expect(dead && memberEnd(dead)?.kind).toBe(kind);
        expect(await claimsOf(made)).toEqual({ label: "taken", card: "open", lease: [] });
      },
    );

    it("the mark goes when its member joins again, and a member with no record is not marked", async () => {
      const made = await kit();
      made.facts.set(11, "alive");
      expect(await made.roster.markEnding("s9", "stop")).toEqual({ ok: true, marked: false });
      await made.roster.join(member("s1", "alice", 11, { liveness: "process" }));
      await made.roster.markEnding("s1", "down");
      await made.roster.join(member("s1", "alice", 11, { liveness: "process" }));
      made.facts.set(11, "dead");
      const read = await made.roster.read();
      const dead = read.ok ? read.members.find((each) => each.id === "s1") : undefined;
      expect(dead && memberEnd(dead)?.kind).toBe("crashed");
    });
  });
}
