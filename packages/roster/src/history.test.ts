import { beforeEach, describe, expect, it } from "vitest";
import type { memoryFs } from "../test/memory-fs.js";
import { memoryTeam } from "../test/memory-team.js";
import type { Roster } from "./index.js";

const DIR = "/teams/t";
let now = 0;
let memory: ReturnType<typeof memoryFs>;
let roster: Roster;

beforeEach(async () => {
  now = Date.parse("2026-11-30T12:00:00.000Z");
  ({ memory, roster } = await memoryTeam({ dir: DIR, clock: () => now, labels: ["alice", "bob"] }));
});

const send = async (body: string, replyTo?: string) => {
  now += 1000;
  const receipt = await roster.send({ from: "s2", to: "alice", body, replyTo });
  if (!receipt.ok) throw new Error(receipt.error);
  return receipt.id;
};

describe("mailHistory", () => {
  it("lists read and new mail, oldest first, each marked; nothing is moved", async () => {
    const first = await send("one");
    await roster.ack("s1", [first]);
    const second = await send("two", first);
    const history = await roster.history("s1");
    expect(history).toMatchObject({
      ok: true,
      messages: [
        { id: first, body: "one", read: true },
        { id: second, body: "two", read: false, replyTo: first },
      ],
      warnings: [],
    });
    // Still new: history is a look, not a read.
    expect(await roster.unread("s1")).toBe(1);
  });

  it("a file that is not a message is named in a warning and left where it is", async () => {
    await send("fine");
    const junk = `${DIR}/mail/s1/cur/0000-forged.json`;
    await memory.fs.writeFile(junk, "{ not json", 0o600);
    const history = await roster.history("s1");
    expect(history.ok && history.messages.map((message) => message.body)).toEqual(["fine"]);
    expect(history.ok && history.warnings).toEqual([
      "mail/s1/cur/0000-forged.json is not a message; skipped",
    ]);
    expect(await memory.fs.readFile(junk)).toBe("{ not json");
  });

  it("refuses an id that could name a path outside the team", async () => {
    expect(await roster.history("../s1")).toMatchObject({ ok: false, reason: "bad-id" });
  });

  it("a mailbox that does not exist is empty, not an error", async () => {
    expect(await roster.history("nobody")).toEqual({ ok: true, messages: [], warnings: [] });
  });
});
