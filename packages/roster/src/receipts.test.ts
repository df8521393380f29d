import { beforeEach, describe, expect, it } from "vitest";
import type { memoryFs } from "../test/memory-fs.js";
import { memoryTeam } from "../test/memory-team.js";
import { RECEIPT_KEEP_MS } from "./_receipts.js";
import type { Roster } from "./index.js";

const DIR = "/teams/t";
let now = 0;
let memory: ReturnType<typeof memoryFs>;
let roster: Roster;

beforeEach(async () => {
  now = Date.parse("2026-11-30T12:00:00.000Z");
  ({ memory, roster } = await memoryTeam({
    dir: DIR,
    clock: () => now,
    labels: ["alice", "bob", "carol"],
  }));
});

const send = async (to = "bob") => {
  const sent = await roster.send({ from: "alice", to, body: "review #12" });
  if (!sent.ok) throw new Error(sent.error);
  return sent.id;
};

const phasesOf = async (messageId: string) => {
  const receipt = await roster.receipt(messageId);
  if (!receipt.ok) throw new Error(receipt.error);
  return Object.fromEntries(receipt.recipients.map((entry) => [entry.id, entry.phases]));
};

describe("receipts", () => {
  it("a send marks each recipient written, with the time it was written", async () => {
    const id = await send("all");
    expect(await phasesOf(id)).toEqual({
      s2: { written: { at: "2026-11-30T12:00:00.000Z" } },
      s3: { written: { at: "2026-11-30T12:00:00.000Z" } },
    });
  });

  it("delivered, woke and acknowledged are marked per recipient, with the door that did it", async () => {
    const id = await send("all");
    now += 1000;
    expect(await roster.markWoke("s2", [id], "codex-queue")).toEqual({ ok: true, marked: [id] });
    now += 1000;
    expect(await roster.markDelivered("s2", [id], "inbox")).toEqual({ ok: true, marked: [id] });
    now += 1000;
    await roster.ack("s2", [id]);
    expect((await phasesOf(id)).s2).toEqual({
      written: { at: "2026-11-30T12:00:00.000Z" },
      woke: { at: "2026-11-30T12:00:01.000Z", how: "codex-queue" },
      delivered: { at: "2026-11-30T12:00:02.000Z", how: "inbox" },
      acknowledged: { at: "2026-11-30T12:00:03.000Z" },
    });
    expect((await phasesOf(id)).s3).toEqual({ written: { at: "2026-11-30T12:00:00.000Z" } });
  });

  it("the first mark of a phase stands: a second delivery does not move its time", async () => {
    const id = await send();
    await roster.markDelivered("s2", [id], "pi");
    now += 5000;
    expect(await roster.markDelivered("s2", [id], "inbox")).toEqual({ ok: true, marked: [] });
    expect((await phasesOf(id)).s2?.delivered).toEqual({
      at: "2026-11-30T12:00:00.000Z",
      how: "pi",
    });
  });

  it("a message that has no receipt yet reads as one with no recipients", async () => {
    expect(await roster.receipt("m-unknown")).toEqual({
      ok: true,
      id: "m-unknown",
      recipients: [],
      warnings: [],
    });
  });

  it.each([
    ["a message id with path characters", "s2", ["../../sessions/s1"], "pi"],
    ["a member id with path characters", "../s2", ["m1"], "pi"],
    ["a door with path characters", "s2", ["m1"], "../x"],
  ])("%s touches nothing", async (_case, member, ids, how) => {
    const before = [...memory.nodes.keys()].sort();
    const marked = await roster.markDelivered(member, ids, how);
    if (member === "s2" && how === "pi") expect(marked).toEqual({ ok: true, marked: [] });
    else expect(marked).toMatchObject({ ok: false, reason: "bad-input" });
    expect([...memory.nodes.keys()].sort()).toEqual(before);
    expect(await roster.receipt("../sessions")).toMatchObject({ ok: false, reason: "bad-id" });
  });

  it("a receipt file that is not one is a warning naming it, never a phase", async () => {
    const id = await send();
    memory.put(`${DIR}/receipts/${id}/s2.delivered.json`, '{"v":1,"phase":"acknowledged"}');
    memory.put(`${DIR}/receipts/${id}/s3.read.json`, "{}");
    await memory.fs.mkdir(`${DIR}/receipts/${id}/s3.acknowledged.json`, 0o700);
    const receipt = await roster.receipt(id);
    expect(receipt.ok && receipt.recipients).toEqual([
      { id: "s2", phases: { written: { at: "2026-11-30T12:00:00.000Z" } } },
    ]);
    expect(receipt.ok && receipt.warnings.sort()).toEqual([
      `receipts/${id}/s2.delivered.json is not a receipt; skipped`,
      `receipts/${id}/s3.acknowledged.json cannot be read (EISDIR); skipped`,
      `receipts/${id}/s3.read.json is not a receipt; skipped`,
    ]);
  });

  it("the waiting mail of a member: how many, and when the oldest was written", async () => {
    expect(await roster.waiting("s2")).toEqual({ count: 0 });
    await send();
    now += 10_000;
    await send();
    expect(await roster.waiting("s2")).toEqual({ count: 2, oldestAt: "2026-11-30T12:00:00.000Z" });
  });
});

describe("prune and receipts", () => {
  it("keeps a receipt while it changes, and removes it RECEIPT_KEEP_MS after its last mark", async () => {
    const id = await send();
    now += RECEIPT_KEEP_MS - 1000;
    await roster.markDelivered("s2", [id], "pi");
    now += 2000;
    const kept = await roster.prune();
    expect(kept.ok && kept.cleared).not.toContain(`receipts/${id}`);
    expect((await phasesOf(id)).s2?.delivered).toBeDefined();
    now += RECEIPT_KEEP_MS;
    const pruned = await roster.prune();
    expect(pruned.ok && pruned.cleared).toContain(`receipts/${id}`);
    expect([...memory.nodes.keys()].filter((key) => key.includes(`/receipts/${id}`))).toEqual([]);
  });

  it("clears the temp file of a mark a crash interrupted, once older than a write takes", async () => {
    const id = await send();
    memory.put(`${DIR}/receipts/${id}/.abc-0001-xyz.tmp`, "{");
    now += 5_000;
    const early = await roster.prune();
    expect(early.ok && early.cleared).not.toContain(`receipts/${id}/.abc-0001-xyz.tmp`);
    now += 6_000;
    const later = await roster.prune();
    expect(later.ok && later.cleared).toContain(`receipts/${id}/.abc-0001-xyz.tmp`);
    expect((await phasesOf(id)).s2?.written).toBeDefined();
  });

  it("leaves a planted name it does not write, and says so", async () => {
    const id = await send();
    memory.put(`${DIR}/receipts/${id}/notes.txt`, "mine");
    now += RECEIPT_KEEP_MS + 1000;
    const pruned = await roster.prune();
    expect(memory.nodes.has(`${DIR}/receipts/${id}/notes.txt`)).toBe(true);
    expect(memory.nodes.has(`${DIR}/receipts/${id}/s2.written.json`)).toBe(false);
    expect(pruned.ok && pruned.warnings).toContain(
      `receipts/${id} holds names muster does not write; left in place`,
    );
  });
});
