// The board and path leases on any store, with core's real rules: cards under the lowest free id
// (a planted last id steers nothing), one owner of many racing claims, a dead owner's card open on
// the next read, a hand-off, the lead; a lease conflict refused, a renewal, a lease that lapses
// with its holder left in place by a read, an unreadable holder's lease standing.
import { decideChange, decideLead, ownerVerdict } from "@muster/core";
import type { BoardSnapshot, Roster } from "@muster/roster";
import { describe, expect, it } from "vitest";
import type { ConformanceHarness } from "./harness.ts";
import { HOUR, kits, leaseHolds, member, release } from "./kit.ts";

type Actor = { label: string; id: string };
type Change = Parameters<typeof decideChange>[2];

const boardOf = (roster: Roster) => roster.board({ ownerVerdict });

/** A change decided by core over the board as read, and again under the card's claim. */
async function change(roster: Roster, actor: Actor, wanted: Change) {
  const decide = (board: BoardSnapshot) => decideChange(board, actor, wanted);
  if (wanted.kind === "add") throw new Error("add through addCard");
  return boardOf(roster).change({
    card: wanted.card,
    actor: actor.id,
    decide,
    after: (decision) =>
      wanted.kind === "claim"
        ? "keep"
        : wanted.kind === "handoff" && decision.card.owner
          ? { transfer: decision.card.owner.id }
          : "release",
  });
}

const addCard = (roster: Roster, actor: Actor, title: string) =>
  boardOf(roster).add((board, id) => decideChange(board, actor, { kind: "add", id, title }));

export function boardRules(harness: ConformanceHarness) {
  const kit = kits(harness);
  const team = async () => {
    const made = await kit();
    made.facts.set(11, "alive");
    made.facts.set(12, "alive");
    await made.roster.join(member("a1", "alice", 11, { liveness: "process" }));
    await made.roster.join(member("b1", "bob", 12, { liveness: "process" }));
    return { ...made, alice: { label: "alice", id: "a1" }, bob: { label: "bob", id: "b1" } };
  };

  describe(`the board on the ${harness.name} store`, () => {
    it("adds cards under the lowest free id; a planted last id neither ends nor steers it", async () => {
      const { team: store, roster, alice } = await team();
      expect(await addCard(roster, alice, "first")).toMatchObject({ ok: true, card: { id: "c1" } });
      await store.plant("board", "c999999999", "{planted");
      expect(await addCard(roster, alice, "second")).toMatchObject({ card: { id: "c2" } });
      const read = await boardOf(roster).read();
      expect(read.ok && [...read.board.cards.keys()].sort()).toEqual(["c1", "c2"]);
      expect(read.ok && read.board.warnings.join("\n")).toContain("c999999999");
    });

    it("ten adds at once get ten different ids", async () => {
      const { roster, alice } = await team();
      const added = await Promise.all(
        Array.from({ length: 10 }, (_, index) => addCard(roster, alice, `card ${index}`)),
      );
      const ids = added.map((each) => (each.ok && "card" in each ? each.card.id : "?"));
      expect(new Set(ids).size).toBe(10);
    });

    it("of many claims at once exactly one wins; the others are told who holds it", async () => {
      const { roster, open, facts, alice } = await team();
      await addCard(roster, alice, "contested");
      const racers = await Promise.all(
        [0, 1, 2, 3, 4, 5].map(async (index) => {
          const other = await open();
          facts.set(30 + index, "alive");
          await other.join(
            member(`r${index}`, `racer${index}`, 30 + index, { liveness: "process" }),
          );
          return { roster: other, actor: { label: `racer${index}`, id: `r${index}` } };
        }),
      );
      const answers = await Promise.all(
        racers.map((racer) => change(racer.roster, racer.actor, { kind: "claim", card: "c1" })),
      );
      const winners = answers.filter((answer) => answer.ok);
      expect(winners).toHaveLength(1);
      const holder = winners[0]!.ok ? winners[0]!.card.owner?.label : undefined;
      for (const loser of answers.filter((answer) => !answer.ok))
        expect(loser).toMatchObject({ reason: "card-held" });
      expect((await boardOf(roster).read()).ok && holder).toMatch(/^racer\d$/);
    });

    it("a card whose owner's process died is open on the next read, with the reason", async () => {
      const { roster, facts, alice, bob } = await team();
      await addCard(roster, alice, "work");
      expect(await change(roster, bob, { kind: "claim", card: "c1" })).toMatchObject({ ok: true });
      facts.set(12, "dead");
      const read = await boardOf(roster).read({ reader: "a1", decide: release });
      expect(read.ok && read.released.map((each) => each.card.id)).toEqual(["c1"]);
      expect(read.ok && read.board.cards.get("c1")).toMatchObject({ state: "open" });
      expect(await change(roster, alice, { kind: "claim", card: "c1" })).toMatchObject({
        ok: true,
      });
    });

    it("a hand-off passes the card to its new owner, who can finish it; the lead is set by the rule", async () => {
      const { roster, alice, bob } = await team();
      await addCard(roster, alice, "pass it on");
      await change(roster, alice, { kind: "claim", card: "c1" });
      const passed = await change(roster, alice, { kind: "handoff", card: "c1", to: "bob" });
      expect(passed).toMatchObject({ ok: true, card: { state: "held", owner: { label: "bob" } } });
      expect(await change(roster, bob, { kind: "done", card: "c1" })).toMatchObject({
        ok: true,
        card: { state: "done" },
      });
      const lead = await boardOf(roster).setLead(alice, (current, members) =>
        decideLead(current, alice, "alice", members),
      );
      expect(lead).toMatchObject({ ok: true });
      expect(await boardOf(roster).lead()).toBe("alice");
    });
  });

  describe(`path leases on the ${harness.name} store`, () => {
    const lease = (holderId: string, holder: string, pattern: string, ttlMs = HOUR) => ({
      holderId,
      holder,
      pattern,
      mode: "exclusive" as const,
      ttlMs,
    });
    const noClash = (holderId: string) => (holding: readonly { holderId: string }[]) =>
      holding.some((each) => each.holderId !== holderId)
        ? { ok: false as const, refusal: "held" }
        : { ok: true as const };

    it("a conflict is refused and writes nothing; the holder renews its own", async () => {
      const { roster } = await team();
      expect(
        await roster.takeLease(lease("a1", "alice", "src/**"), leaseHolds, noClash("a1")),
      ).toMatchObject({
        ok: true,
        renewed: false,
      });
      expect(
        await roster.takeLease(lease("b1", "bob", "src/x.ts"), leaseHolds, noClash("b1")),
      ).toEqual({
        ok: false,
        reason: "refused",
        refusal: "held",
      });
      expect(
        await roster.takeLease(lease("a1", "alice", "src/**"), leaseHolds, noClash("a1")),
      ).toMatchObject({
        ok: true,
        renewed: true,
      });
      const read = await roster.leases(leaseHolds);
      expect(read.ok && read.leases.map((each) => each.holder)).toEqual(["alice"]);
    });

    it("a lease lapses with its holder: a read says so and changes nothing; the next take clears it", async () => {
      const { roster, facts } = await team();
      await roster.takeLease(lease("b1", "bob", "docs/**"), leaseHolds, noClash("b1"));
      facts.set(12, "dead");
      const read = await roster.leases(leaseHolds);
      expect(read).toMatchObject({ ok: true, leases: [], lapsed: [{ holder: "bob" }] });
      expect(await roster.leases(leaseHolds)).toEqual(read);
      expect(
        await roster.takeLease(lease("a1", "alice", "docs/**"), leaseHolds, noClash("a1")),
      ).toMatchObject({
        ok: true,
      });
      expect(await roster.leases(leaseHolds)).toMatchObject({
        lapsed: [],
        leases: [{ holder: "alice" }],
      });
    });

    it("a holder whose record cannot be read keeps its lease; the lease's TTL still ends it", async () => {
      const { team: store, roster, advance } = await team();
      await roster.takeLease(lease("b1", "bob", "lib/**", 2 * HOUR), leaseHolds, noClash("b1"));
      await store.plant("sessions", "b1", `${JSON.stringify({ v: 2, id: "b1" })}\n`);
      const read = await roster.leases(leaseHolds);
      expect(read.ok && read.leases.map((each) => each.holderState)).toEqual(["unknown"]);
      advance(2 * HOUR);
      expect(await roster.leases(leaseHolds)).toMatchObject({
        leases: [],
        lapsed: [{ holder: "bob" }],
      });
    });
  });
}
