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

  it("mail forwarded on a takeover links both recipients in the receipt, and its read counts", async () => {
    const id = await send("bob");
    now += 2 * 60 * 60_000; // bob expires, unread
    await roster.heartbeat("s1");
    const took = await roster.join({
      id: "s9",
      label: "bob",
      agent: "pi",
      pid: 90,
      watching: { armed: true, wake: false },
      liveness: "heartbeat",
    });
    expect(took).toMatchObject({ ok: true, took: { from: "s2", forwarded: 1 } });
    await roster.ack("s9", [id]);
    const receipt = await roster.receipt(id);
    expect(receipt.ok && receipt.recipients).toEqual([
      { id: "s2", phases: { written: { at: "2026-11-30T12:00:00.000Z" } }, forwardedTo: "s9" },
      {
        id: "s9",
        forwardedFrom: "s2",
        phases: {
          written: { at: "2026-11-30T14:00:00.000Z", how: "forwarded" },
          acknowledged: { at: "2026-11-30T14:00:00.000Z" },
        },
      },
    ]);
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

  it("a wake that failed is kept with its door and the engine's words; the latest one stands", async () => {
    const id = await send();
    const error = "thread/queue/add failed: failed to read thread: invalid";
    expect(await roster.markWakeFailed("s2", [id], "codex-queue", "first")).toEqual({
      ok: true,
      marked: [id],
    });
    now += 1000;
    await roster.markWakeFailed("s2", [id], "codex-queue", `${error}\n${"x".repeat(600)}`);
    const receipt = await roster.receipt(id);
    const entry = receipt.ok ? receipt.recipients.find((each) => each.id === "s2") : undefined;
    expect(entry?.phases).toEqual({ written: { at: "2026-11-30T12:00:00.000Z" } });
    expect(entry?.wakeFailed).toEqual({
      at: "2026-11-30T12:00:01.000Z",
      how: "codex-queue",
      error: `${error} ${"x".repeat(600)}`.slice(0, 300),
    });
    // A failure planted under another member's name, or one that does not parse, is no failure.
    memory.put(`${DIR}/receipts/${id}/s3.wake-failed.json`, '{"v":1,"phase":"wake-failed"}');
    const again = await roster.receipt(id);
    expect(again.ok && again.recipients.map((each) => each.id)).toEqual(["s2"]);
    expect(again.ok && again.warnings).toEqual([
      `receipts/${id}/s3.wake-failed.json is not a receipt; skipped`,
    ]);
    expect(await roster.markWakeFailed("s2", [id], "../x", error)).toMatchObject({
      ok: false,
      reason: "bad-input",
    });
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
  const filesOf = (id: string) =>
    [...memory.nodes.keys()].filter((key) => key.includes(`/receipts/${id}`)).sort();

  it("never removes the receipt of mail still unread, however old; folds read mail's, then removes it RECEIPT_KEEP_MS after its last mark", async () => {
    const id = await send();
    // Eight days unread, bob alive all along (beating every half hour): the receipt stays.
    for (let beat = 0; beat < 8 * 48; beat += 1) {
      now += 30 * 60_000;
      await roster.heartbeat("s2");
    }
    const unread = await roster.prune();
    expect(unread).toMatchObject({ ok: true, compacted: [] });
    expect(unread.ok && unread.cleared).not.toContain(`receipts/${id}`);
    await roster.markDelivered("s2", [id], "pi");
    await roster.ack("s2", [id]);
    const before = await roster.receipt(id);
    now += 30_000; // a read's trailing marks may still come: not folded yet
    expect(await roster.prune()).toMatchObject({ ok: true, compacted: [] });
    now += 60_000;
    expect(await roster.prune()).toMatchObject({ ok: true, compacted: [id] });
    expect(filesOf(id)).toEqual([`${DIR}/receipts/${id}.json`]);
    expect(await roster.receipt(id)).toEqual(before);
    expect(await roster.markWoke("s2", [id], "pi")).toMatchObject({ marked: [id] });
    expect(await roster.markDelivered("s2", [id], "inbox")).toMatchObject({ marked: [] });
    expect((await phasesOf(id)).s2?.delivered).toEqual({ at: expect.any(String), how: "pi" });
    now += RECEIPT_KEEP_MS + 1000;
    const pruned = await roster.prune();
    expect(pruned.ok && pruned.cleared).toContain(`receipts/${id}`);
    expect(filesOf(id)).toEqual([]);
  });

  it("a failed wake is never folded away: kept with its receipt past the day, removed after the week", async () => {
    const id = await send();
    await roster.markWakeFailed("s2", [id], "codex-queue", "codex: queue refused");
    await roster.ack("s2", [id]);
    now += RECEIPT_KEEP_MS + 60_000;
    expect(await roster.prune()).toMatchObject({ ok: true, compacted: [id] });
    expect(filesOf(id)).toEqual([
      `${DIR}/receipts/${id}`,
      `${DIR}/receipts/${id}.json`,
      `${DIR}/receipts/${id}/s2.wake-failed.json`,
    ]);
    const receipt = await roster.receipt(id);
    expect(receipt.ok && receipt.recipients[0]).toMatchObject({
      phases: { written: {}, acknowledged: {} },
      wakeFailed: { how: "codex-queue", error: "codex: queue refused" },
    });
    now += 7 * 24 * 60 * 60_000;
    const pruned = await roster.prune();
    expect(pruned.ok && pruned.cleared).toContain(`receipts/${id}`);
    expect(filesOf(id)).toEqual([]);
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
    await roster.ack("s2", [id]);
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
