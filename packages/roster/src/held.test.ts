// A label kept for a declared member that is down (the host says which: core's downMembers over
// its team file): nobody else joins under it, mail to it waits in the mailbox of the id it comes
// back as, prune keeps that mailbox, and the member back under its id reads it.
import { beforeEach, describe, expect, it } from "vitest";
import { memoryTeam } from "../test/memory-team.js";
import type { HeldLabel, Roster } from "./index.js";

let now = 0;
let held: HeldLabel[] = [];
let roster: Roster;

beforeEach(async () => {
  now = Date.parse("2026-12-07T05:00:00.000Z");
  held = [];
  ({ roster } = await memoryTeam({
    dir: "/teams/t",
    clock: () => now,
    labels: ["alice", "bob"],
    held: async () => held,
  }));
  // bob goes down: off the team, its label kept for it.
  await roster.leave("s2");
  held = [{ label: "bob", id: "s2", since: "2026-12-07T05:00:00.000Z" }];
});

const join = (id: string, label: string) =>
  roster.join({
    id,
    label,
    agent: "pi",
    pid: 11,
    watching: { armed: true, wake: true },
    liveness: "heartbeat",
  });

describe("a label kept for a member that is down", () => {
  it("keeps a send to it in the mailbox of the id it comes back as, marked down", async () => {
    const receipt = await roster.send({ from: "alice", to: "BOB", body: "for when you are back" });
    expect(receipt).toMatchObject({
      ok: true,
      to: [{ id: "s2", label: "bob", down: "2026-12-07T05:00:00.000Z", duplicate: false }],
    });
    // Not to everyone: `all` is the live members.
    expect(await roster.send({ from: "alice", to: "all", body: "x" })).toMatchObject({
      ok: false,
      reason: "no-recipients",
    });
    // Back under its own id: the mail is there, unread.
    expect(await join("s2", "bob")).toMatchObject({ ok: true });
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual([
      "for when you are back",
    ]);
  });

  it("refuses anyone else a join under it, saying how to bring the member back", async () => {
    expect(await join("s9", "bob")).toMatchObject({
      ok: false,
      reason: "label-held",
      error: expect.stringMatching(/kept for a declared member that is down/),
      fix: "pick another label (this one comes back with its member)",
    });
    // A rename onto it too.
    expect(await join("s1", "Bob")).toMatchObject({ ok: false, reason: "label-held" });
    // Not kept any more (up is starting it, or the team file dropped it): free again.
    held = [];
    expect(await join("s9", "bob")).toMatchObject({ ok: true });
  });

  it("prune keeps its mailbox past the TTL, with the mail in it", async () => {
    await roster.send({ from: "alice", to: "bob", body: "kept" });
    now += 30 * 86_400_000;
    await roster.heartbeat("s1");
    const pruned = await roster.prune();
    expect(pruned.ok && pruned.cleared).not.toContain("mail/s2");
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual(["kept"]);
  });

  it("a member back under a new id (a resumed Claude Code) takes over the mail that waited", async () => {
    await roster.send({ from: "alice", to: "bob", body: "waited" });
    held = [];
    expect(await join("s7", "bob")).toMatchObject({ ok: true });
    expect(await roster.forwardMail({ id: "s2", label: "bob" }, "s7")).toEqual({
      forwarded: 1,
      left: 0,
    });
    const inbox = await roster.receive("s7");
    expect(inbox.ok && inbox.messages).toMatchObject([
      { body: "waited", forwardedFrom: { id: "s2", label: "bob" } },
    ]);
  });
});
