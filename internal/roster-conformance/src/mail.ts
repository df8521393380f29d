// Mail on any store: delivery to a label or to all, the refusals that write nothing, a retried send
// recognised by its id, unread mail oldest first until acknowledged, history, the received
// message by id, what waits; forwarding on a takeover; receipts per phase, the first standing.
import { describe, expect, it } from "vitest";
import type { ConformanceHarness } from "./harness.ts";
import { HOUR, kits, member } from "./kit.ts";

export function mailRules(harness: ConformanceHarness) {
  const kit = kits(harness);
  /** alice (s1), bob (s2) and carol (s3), live. */
  const team = async () => {
    const made = await kit();
    for (const [index, label] of ["alice", "bob", "carol"].entries())
      await made.roster.join(member(`s${index + 1}`, label, 11 + index));
    return made;
  };
  const bodies = (messages: readonly { body: string }[]) => messages.map((each) => each.body);

  describe(`mail on the ${harness.name} store`, () => {
    it("reaches a label's holder, from an id or a label, oldest first, until acknowledged", async () => {
      const { roster, advance } = await team();
      const first = await roster.send({ from: "s1", to: "BOB", body: "one" });
      advance(10);
      const second = await roster.send({ from: "alice", to: "bob", body: "two", urgent: true });
      expect(first).toMatchObject({ ok: true, to: [{ id: "s2", label: "bob", duplicate: false }] });
      const inbox = await roster.receive("s2");
      expect(inbox.ok && bodies(inbox.messages)).toEqual(["one", "two"]);
      expect(inbox.ok && inbox.messages[1]).toMatchObject({ from: { id: "s1" }, urgent: true });
      expect(await roster.unread("s2")).toBe(2);
      const ids = [first.ok ? first.id : "", second.ok ? second.id : ""];
      expect(await roster.ack("s2", [ids[0]!, "nope"])).toMatchObject({
        acked: [ids[0]],
        missing: ["nope"],
      });
      const after = await roster.receive("s2");
      expect(after.ok && bodies(after.messages)).toEqual(["two"]);
      const history = await roster.history("s2");
      expect(history.ok && history.messages.map((each) => [each.body, each.read])).toEqual([
        ["one", true],
        ["two", false],
      ]);
      expect(await roster.received("s2", ids[0]!)).toMatchObject({ body: "one" });
      expect(await roster.received("s3", ids[0]!)).toBeUndefined();
    });

    it("all reaches every live member but the sender, with one message id", async () => {
      const { roster } = await team();
      const sent = await roster.send({ from: "alice", to: "all", body: "standup" });
      expect(sent.ok && sent.to.map((each) => each.label).sort()).toEqual(["bob", "carol"]);
      for (const id of ["s2", "s3"]) {
        const inbox = await roster.receive(id);
        expect(inbox.ok && inbox.messages.map((each) => each.id)).toEqual([sent.ok && sent.id]);
      }
      expect(await roster.unread("s1")).toBe(0);
    });

    it.each([
      [{ from: "alice", to: "nobody", body: "x" }, "no-live-holder"],
      [{ from: "alice", to: "alice", body: "x" }, "to-self"],
      [{ from: "mallory", to: "bob", body: "x" }, "not-member"],
      [{ from: "alice", to: "bob", body: "  " }, "empty-body"],
    ])("a send refused (%o: %s) writes nothing", async (input, reason) => {
      const { roster } = await team();
      expect(await roster.send(input)).toMatchObject({ ok: false, reason });
      for (const id of ["s1", "s2", "s3"]) expect(await roster.unread(id)).toBe(0);
    });

    it("a retried send with the same id is recognised, even after it was read", async () => {
      const { roster } = await team();
      const sent = await roster.send({ from: "alice", to: "bob", body: "once", id: "m-1" });
      expect(sent).toMatchObject({ ok: true, to: [{ duplicate: false }] });
      await roster.ack("s2", ["m-1"]);
      const again = await roster.send({ from: "alice", to: "bob", body: "once", id: "m-1" });
      expect(again).toMatchObject({ ok: true, to: [{ duplicate: true }] });
      expect(await roster.unread("s2")).toBe(0);
    });

    it("a guest may send when it names itself, marked as such", async () => {
      const { roster } = await team();
      const sent = await roster.send({ from: "outsider", to: "bob", body: "hi", guest: "board" });
      expect(sent).toMatchObject({ ok: true });
      const inbox = await roster.receive("s2");
      expect(inbox.ok && inbox.messages[0]?.from).toEqual({
        id: "outsider",
        label: "board",
        guest: true,
      });
    });

    it("what waits: how many, and since when", async () => {
      const { roster } = await team();
      expect(await roster.waiting("s2")).toEqual({ count: 0 });
      await roster.send({ from: "alice", to: "bob", body: "one" });
      await roster.send({ from: "carol", to: "bob", body: "two" });
      const waiting = await roster.waiting("s2");
      expect(waiting.count).toBe(2);
      expect(Number.isNaN(Date.parse(waiting.oldestAt ?? ""))).toBe(false);
    });

    it("an unread entry that is not a message is set aside with a warning, never fatal", async () => {
      const { team: store, roster } = await team();
      await roster.send({ from: "alice", to: "bob", body: "good" });
      await store.plantMail("s2", "junk-1", "not json");
      const inbox = await roster.receive("s2");
      expect(inbox.ok && bodies(inbox.messages)).toEqual(["good"]);
      expect(inbox.ok && inbox.warnings.join("\n")).toContain("is not a message");
      const again = await roster.receive("s2");
      expect(again.ok && again.warnings).toEqual([]);
    });
  });

  describe(`forwarding on the ${harness.name} store`, () => {
    it("a dead holder's unread mail goes to the new holder, marked; its read mail stays", async () => {
      const { roster, facts } = await team();
      await roster.join(member("h1", "lead", 40));
      const ids: string[] = [];
      for (const body of ["first", "second", "read already"]) {
        const sent = await roster.send({ from: "alice", to: "lead", body });
        if (sent.ok) ids.push(sent.id);
      }
      await roster.ack("h1", [ids[2]!]);
      facts.set(40, "dead");
      expect(await roster.join(member("n1", "LEAD", 41))).toMatchObject({
        ok: true,
        took: { from: "h1", reason: "dead", forwarded: 2 },
      });
      const inbox = await roster.receive("n1");
      expect(inbox.ok && inbox.messages.map((each) => [each.body, each.forwardedFrom])).toEqual([
        ["first", { id: "h1", label: "lead" }],
        ["second", { id: "h1", label: "lead" }],
      ]);
      // The receipt follows: the sender sees the new holder read what the old one never did.
      await roster.ack("n1", [ids[0]!]);
      const receipt = await roster.receipt(ids[0]!);
      expect(receipt.ok && receipt.recipients).toMatchObject([
        { id: "h1", forwardedTo: "n1", phases: { written: {} } },
        { id: "n1", forwardedFrom: "h1", phases: { written: { how: "forwarded" } } },
      ]);
      expect(receipt.ok && receipt.recipients[1]?.phases.acknowledged).toBeDefined();
    });

    it("an expired holder's unread mail is forwarded too", async () => {
      const { roster, advance } = await team();
      await roster.join(member("h1", "lead", 40));
      await roster.send({ from: "alice", to: "lead", body: "while away" });
      advance(HOUR + 1_000);
      await roster.join(member("s1", "alice", 11));
      expect(await roster.join(member("n1", "lead", 41))).toMatchObject({
        ok: true,
        took: { reason: "expired", forwarded: 1 },
      });
    });
  });

  describe(`receipts on the ${harness.name} store`, () => {
    it("written by send, woke and delivered by their doors, acknowledged by ack; first stands", async () => {
      const { roster, advance } = await team();
      const sent = await roster.send({ from: "alice", to: "all", body: "review" });
      const id = sent.ok ? sent.id : "";
      advance(1_000);
      expect(await roster.markWoke("s2", [id], "codex-queue")).toEqual({ ok: true, marked: [id] });
      advance(1_000);
      expect(await roster.markDelivered("s2", [id], "inbox")).toEqual({ ok: true, marked: [id] });
      advance(1_000);
      expect(await roster.markDelivered("s2", [id], "pi")).toEqual({ ok: true, marked: [] });
      await roster.ack("s2", [id]);
      const receipt = await roster.receipt(id);
      const s2 = receipt.ok ? receipt.recipients.find((each) => each.id === "s2") : undefined;
      expect(Object.keys(s2?.phases ?? {}).sort()).toEqual([
        "acknowledged",
        "delivered",
        "woke",
        "written",
      ]);
      expect(s2?.phases.delivered?.how).toBe("inbox");
      const s3 = receipt.ok ? receipt.recipients.find((each) => each.id === "s3") : undefined;
      expect(Object.keys(s3?.phases ?? {})).toEqual(["written"]);
    });

    it("mail already shown another way (a first prompt) is read at once: delivered by that door, acknowledged", async () => {
      const { roster } = await team();
      const sent = await roster.send({
        from: "alice",
        to: "bob",
        body: "the task",
        shown: "prompt",
      });
      const id = sent.ok ? sent.id : "";
      expect(sent).toMatchObject({ ok: true, to: [{ id: "s2", label: "bob", duplicate: false }] });
      expect(await roster.unread("s2")).toBe(0);
      expect(await roster.waiting("s2")).toEqual({ count: 0 });
      const inbox = await roster.receive("s2");
      expect(inbox.ok && inbox.messages).toEqual([]);
      const history = await roster.history("s2");
      expect(history.ok && history.messages.map((each) => [each.body, each.read])).toEqual([
        ["the task", true],
      ]);
      const receipt = await roster.receipt(id);
      const s2 = receipt.ok ? receipt.recipients.find((each) => each.id === "s2") : undefined;
      expect(Object.keys(s2?.phases ?? {}).sort()).toEqual([
        "acknowledged",
        "delivered",
        "written",
      ]);
      expect(s2?.phases.delivered?.how).toBe("prompt");
      // A retry is still recognised, and a door name that is none writes nothing.
      const again = await roster.send({
        from: "alice",
        to: "bob",
        body: "the task",
        shown: "prompt",
        id,
      });
      expect(again).toMatchObject({ ok: true, to: [{ duplicate: true }] });
      expect(
        await roster.send({ from: "alice", to: "carol", body: "x", shown: "Not A Door" }),
      ).toMatchObject({ ok: false, reason: "bad-input" });
      expect((await roster.history("s3")).ok && (await roster.history("s3"))).toMatchObject({
        messages: [],
      });
    });

    it("a message with no receipt reads as one with no recipients; ids are checked first", async () => {
      const { roster } = await team();
      expect(await roster.receipt("m-none")).toMatchObject({ ok: true, recipients: [] });
      expect(await roster.receipt("../x")).toMatchObject({ ok: false, reason: "bad-id" });
      expect(await roster.markDelivered("s2", ["m1"], "Not A Door")).toMatchObject({
        ok: false,
        reason: "bad-input",
      });
    });
  });
}
