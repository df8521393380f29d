// Prune on any store: the expired and the proven dead forgotten (their unread mail retired, never
// lost), the stale kept with when they go, a record nobody can read kept until the TTL and then
// set aside, orphan label claims and old wake claims cleared, nothing removed when the team cannot
// be judged.
import { WAKE_CLAIM_MS } from "@muster/roster";
import { describe, expect, it } from "vitest";
import type { ConformanceHarness } from "./harness.ts";
import { HOUR, kits, member } from "./kit.ts";

export function pruneRules(harness: ConformanceHarness) {
  const kit = kits(harness);

  describe(`prune on the ${harness.name} store`, () => {
    it("forgets the expired with their claims, retires their unread mail, keeps the living", async () => {
      const { roster, advance } = await kit();
      await roster.join(member("old", "alice", 11));
      await roster.join(member("s2", "bob", 12));
      await roster.send({ from: "bob", to: "alice", body: "never read" });
      advance(HOUR / 2);
      await roster.heartbeat("s2");
      advance(HOUR / 2 + 1_000);
      const pruned = await roster.prune();
      expect(pruned).toMatchObject({
        ok: true,
        removed: ["old"],
        expiredMail: [{ id: "old", label: "alice", unread: 1 }],
      });
      expect(await roster.readClaim("labels", "alice")).toBeUndefined();
      const read = await roster.read({ all: true });
      expect(read.ok && read.members.map((each) => each.id)).toEqual(["s2"]);
      expect(await roster.unread("old")).toBe(0);
    });

    it("forgets a member proven dead at once; keeps a stale one and says when it goes", async () => {
      const { roster, facts, advance } = await kit();
      await roster.join(member("dead", "alice", 11, { liveness: "process" }));
      await roster.join(member("quiet", "bob", 12));
      facts.set(11, "dead");
      advance(40_000);
      const pruned = await roster.prune();
      expect(pruned).toMatchObject({ ok: true, removed: ["dead"] });
      expect(pruned.ok && pruned.kept).toEqual([
        { id: "quiet", label: "bob", reason: "heartbeat-stale", expiresInMs: HOUR - 40_000 },
      ]);
    });

    it("a dead member whose label a live member holds now: its unread mail goes to that holder, never to expired/", async () => {
      const { roster, facts } = await kit();
      await roster.join(member("dead", "lead", 11, { liveness: "process" }));
      await roster.join(member("s2", "bob", 12));
      const sent = await roster.send({ from: "bob", to: "lead", body: "for whoever leads" });
      facts.set(11, "dead");
      // The label changed hands with nobody retiring its dead holder (a winner that crashed before
      // it did, an older muster): the claim alone was taken over, then joined.
      const judge = async () => ({ free: true as const, reason: "dead" as const });
      expect(
        await roster.claim({ space: "labels", key: "lead", holder: "next", judge }),
      ).toMatchObject({ ok: true });
      // Claimed, its record not written yet (a join on its way, which retires `dead` itself):
      // prune leaves `dead` and its mail alone.
      expect(await roster.prune()).toMatchObject({ ok: true, removed: [], expiredMail: [] });
      expect(await roster.unread("dead")).toBe(1);
      expect(await roster.join(member("next", "lead", 13))).toMatchObject({ ok: true });
      const pruned = await roster.prune();
      expect(pruned).toMatchObject({ ok: true, removed: ["dead"] });
      // A store may still name the retired mailbox (its read mail); no unread message goes there.
      expect(pruned.ok && pruned.expiredMail.filter((moved) => moved.unread > 0)).toEqual([]);
      const inbox = await roster.receive("next");
      expect(inbox.ok && inbox.messages.map((each) => [each.id, each.forwardedFrom?.id])).toEqual([
        [sent.ok && sent.id, "dead"],
      ]);
    });

    it("a record nobody can read stays, with its claims, until the TTL; then it is set aside", async () => {
      const { team, roster, advance } = await kit();
      await roster.join(member("s1", "lead", 11));
      await team.plant("sessions", "s1", `${JSON.stringify({ v: 2, id: "s1" })}\n`);
      expect(await roster.prune()).toMatchObject({ ok: true, removed: [], quarantined: [] });
      expect(await roster.readClaim("labels", "lead")).toMatchObject({ holder: "s1" });
      advance(HOUR + 1_000);
      const later = await roster.prune();
      expect(later.ok && later.quarantined).toHaveLength(1);
      expect(await roster.readClaim("labels", "lead")).toBeUndefined();
    });

    it("clears a label claim whose holder never wrote a record, once past the grace", async () => {
      const { team, roster, advance, now } = await kit();
      const claim = {
        v: 1,
        key: "ghost",
        holder: "g1",
        at: new Date(now()).toISOString(),
        token: "t",
      };
      await team.plant("labels", "ghost", `${JSON.stringify(claim)}\n`);
      expect(await roster.prune()).toMatchObject({ ok: true });
      expect(await roster.readClaim("labels", "ghost")).toMatchObject({ holder: "g1" });
      advance(11_000);
      await roster.prune();
      expect(await roster.readClaim("labels", "ghost")).toBeUndefined();
    });

    it("removes wake claims once past WAKE_CLAIM_MS", async () => {
      const { roster, advance } = await kit();
      const judge = async () => ({ free: false as const, held: "taken" });
      await roster.claim({ space: "wakes", key: "s1.m1", holder: "waker", judge });
      advance(WAKE_CLAIM_MS - 1_000);
      await roster.prune();
      expect(await roster.readClaim("wakes", "s1.m1")).toMatchObject({ holder: "waker" });
      advance(2_000);
      await roster.prune();
      expect(await roster.readClaim("wakes", "s1.m1")).toBeUndefined();
    });
  });
}
