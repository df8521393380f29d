// The loop brake on any store: a reply carries its conversation (the id of the message that began
// it); each message takes one of the conversation's turn slots (core's conversationTurns, 12 in 10
// minutes), counted across every member, not per pair; past the budget a message still arrives,
// braked (it wakes no one), each recipient's receipt holds its wake for the brake, and only the
// first such send is told it is first (the lead and the person are told once).
import {
  BRAKE_WORDS,
  CONVERSATION_TURNS,
  CONVERSATION_WINDOW_MS,
  conversationTurns,
  decideDelivery,
} from "@muster/core";
import type { Receipt, Roster } from "@muster/roster";
import { describe, expect, it } from "vitest";
import type { ConformanceHarness } from "./harness.ts";
import { kits, member } from "./kit.ts";

export function conversationRules(harness: ConformanceHarness) {
  const kit = kits(harness);
  const labels = ["alice", "bob", "carol"];
  const ok = (receipt: Receipt) => {
    if (!receipt.ok) throw new Error(`not sent: ${receipt.error}`);
    return receipt;
  };
  /** Each member replies to the last message it got, to the next in the ring: A→B→C→A. */
  async function bounce(roster: Roster, count: number, first: string) {
    const sent: (Receipt & { ok: true })[] = [];
    let last = first;
    for (let turn = 0; turn < count; turn += 1) {
      const from = `s${((turn + 1) % 3) + 1}`;
      const to = labels[(turn + 2) % 3]!;
      const receipt = ok(
        await roster.send({
          from,
          to,
          body: `turn ${turn}`,
          replyTo: last,
          turns: conversationTurns(),
        }),
      );
      sent.push(receipt);
      last = receipt.id;
    }
    return sent;
  }

  describe(`the loop brake on the ${harness.name} store`, () => {
    it("three members bouncing replies: the budget is the conversation's, past it mail arrives braked, first told once", async () => {
      const { roster, advance } = await kit();
      for (const [index, label] of labels.entries())
        await roster.join(member(`s${index + 1}`, label, 11 + index));
      const start = ok(
        await roster.send({ from: "s1", to: "bob", body: "begin", turns: conversationTurns() }),
      );
      expect(start.conversation).toBe(start.id);
      // Each pair exchanges only a third of the turns; the conversation counts them all.
      const sent = await bounce(roster, CONVERSATION_TURNS + 2, start.id);
      expect(new Set(sent.map((each) => each.conversation))).toEqual(new Set([start.id]));
      const braked = sent.map((each) => each.brake?.first);
      expect(braked).toEqual([
        ...Array(CONVERSATION_TURNS - 1).fill(undefined),
        true,
        false,
        false,
      ]);
      // Braked mail arrives, marked, and the policy wakes no one for it.
      const last = sent.at(-1)!;
      const to = last.to[0]!.id;
      const got = await roster.received(to, last.id);
      expect(got).toMatchObject({
        body: `turn ${CONVERSATION_TURNS + 1}`,
        braked: true,
        conversation: start.id,
      });
      expect(decideDelivery(got!, { armed: true, wake: true }, [], Date.now())).toMatchObject({
        wake: false,
        reason: "loop-brake",
      });
      // Its receipt says why, for the sender's --wait.
      const receipt = await roster.receipt(last.id);
      expect(receipt.ok && receipt.recipients[0]?.wakeHeld).toMatchObject({
        how: "loop-brake",
        words: BRAKE_WORDS,
      });
      // Another conversation has its own budget.
      const other = ok(
        await roster.send({ from: "s2", to: "carol", body: "new", turns: conversationTurns() }),
      );
      expect(other.brake).toBeUndefined();
      // A window later the conversation may wake again, and a new brake is told again.
      advance(CONVERSATION_WINDOW_MS);
      for (const id of ["s1", "s2", "s3"]) await roster.heartbeat(id);
      const later = await bounce(roster, CONVERSATION_TURNS + 1, last.id);
      expect(later.slice(0, CONVERSATION_TURNS).every((each) => each.brake === undefined)).toBe(
        true,
      );
      expect(later.at(-1)?.brake?.first).toBe(true);
    });

    it("a send without the budget keeps no count, and a new message begins its own conversation", async () => {
      const { roster } = await kit();
      for (const [index, label] of labels.entries())
        await roster.join(member(`s${index + 1}`, label, 11 + index));
      const first = ok(await roster.send({ from: "s1", to: "bob", body: "x" }));
      let last = first.id;
      for (let turn = 0; turn < CONVERSATION_TURNS + 2; turn += 1) {
        const reply = ok(
          await roster.send({
            from: turn % 2 ? "s1" : "s2",
            to: turn % 2 ? "bob" : "alice",
            body: "y",
            replyTo: last,
          }),
        );
        expect(reply.brake).toBeUndefined();
        expect(reply.conversation).toBe(first.id);
        last = reply.id;
      }
    });
  });
}
