// Who a send reaches, judged as the whole team would judge it, however the roster reads it: a
// label's holder only while its record names that label and it is live; a sender only while it
// is live and holds its own label. Each case is one a send that reads only the records it names
// (sender and recipient, by key) could get wrong.
import { describe, expect, it } from "vitest";
import type { ConformanceHarness } from "./harness.ts";
import { HOUR, kits, member } from "./kit.ts";

export function addressingRules(harness: ConformanceHarness) {
  const kit = kits(harness);
  /** alice (s1), bob (s2) and carol (s3), live. */
  const team = async () => {
    const made = await kit();
    for (const [index, label] of ["alice", "bob", "carol"].entries())
      await made.roster.join(member(`s${index + 1}`, label, 11 + index));
    return made;
  };
  const nothingWritten = async (roster: Awaited<ReturnType<typeof team>>["roster"]) => {
    for (const id of ["s1", "s2", "s3", "s9"]) expect(await roster.unread(id)).toBe(0);
  };

  describe(`addressing on the ${harness.name} store`, () => {
    it("a claim held by a member whose record names another label addresses nobody", async () => {
      const { team: store, roster, now } = await team();
      await roster.join(member("s9", "dave", 19));
      // dave's claim now names bob's session: s9 no longer holds its label, s2 holds only bob.
      const at = new Date(now()).toISOString();
      const claim = { v: 1, key: "dave", holder: "s2", at, token: "t-planted" };
      await store.plant("labels", "dave", `${JSON.stringify(claim)}\n`);
      expect(await roster.send({ from: "alice", to: "Dave", body: "x" })).toMatchObject({
        ok: false,
        reason: "no-live-holder",
      });
      for (const from of ["s9", "dave"])
        expect(await roster.send({ from, to: "bob", body: "x" })).toMatchObject({
          ok: false,
          reason: "not-member",
        });
      await nothingWritten(roster);
      expect(await roster.send({ from: "s2", to: "alice", body: "y" })).toMatchObject({
        ok: true,
        to: [{ id: "s1", label: "alice" }],
      });
    });

    it("a gone sender is no member; a gone holder is refused, saying so", async () => {
      const { roster, advance } = await team();
      advance(31_000);
      await roster.heartbeat("s2");
      await roster.heartbeat("s3");
      for (const from of ["s1", "alice"])
        expect(await roster.send({ from, to: "bob", body: "x" })).toMatchObject({
          ok: false,
          reason: "not-member",
        });
      const refused = await roster.send({ from: "bob", to: "alice", body: "x" });
      expect(refused).toMatchObject({ ok: false, reason: "no-live-holder" });
      expect(refused.ok === false && refused.error).toContain('"alice" is gone (heartbeat-stale)');
      await nothingWritten(roster);
      // A guest may use a gone member's id: the id is no live member's.
      const guest = await roster.send({ from: "s1", to: "carol", body: "g", guest: "outside" });
      expect(guest).toMatchObject({ ok: true, to: [{ id: "s3" }] });
      const inbox = await roster.receive("s3");
      expect(inbox.ok && inbox.messages[0]?.from).toEqual({
        id: "s1",
        label: "outside",
        guest: true,
      });
    });

    it("an expired holder holds nothing a send can reach; a proven-dead one is gone", async () => {
      const { roster, advance, facts } = await team();
      advance(HOUR + 1);
      await roster.join(member("s2", "bob", 12));
      await roster.join(member("s3", "carol", 13));
      const expired = await roster.send({ from: "bob", to: "alice", body: "x" });
      expect(expired).toMatchObject({ ok: false, reason: "no-live-holder" });
      expect(expired.ok === false && expired.error).toContain("nobody holds");
      facts.set(13, "dead");
      const dead = await roster.send({ from: "bob", to: "carol", body: "x" });
      expect(dead.ok === false && dead.error).toContain('"carol" is gone (process-dead)');
      expect(await roster.send({ from: "carol", to: "bob", body: "x" })).toMatchObject({
        reason: "not-member",
      });
      await nothingWritten(roster);
    });

    it("an id is the sender before a label: a session named like another's label", async () => {
      const { roster } = await team();
      await roster.join(member("bob", "dave", 19));
      const sent = await roster.send({ from: "bob", to: "carol", body: "from the id" });
      expect(sent).toMatchObject({ ok: true });
      const inbox = await roster.receive("s3");
      expect(inbox.ok && inbox.messages[0]?.from).toEqual({ id: "bob", label: "dave" });
      expect(await roster.send({ from: "bob", to: "Dave", body: "x" })).toMatchObject({
        reason: "to-self",
      });
    });
  });
}
