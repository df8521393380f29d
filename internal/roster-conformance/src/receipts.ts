// Receipts kept small on any store: prune folds a settled receipt (every recipient read it) into
// one value and removes read mail's receipt after a day; it never loses the receipt of mail still
// unread, nor a failed wake; and prunes SIGKILLed mid-fold, round after round, while marks keep
// coming, lose no mark (real processes, worker.ts).
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { processFacts, processStart } from "@muster/node";
import type { RecipientReceipt, Roster } from "@muster/roster";
import { lineQueue, rounds } from "@muster/test-support";
import { afterEach, describe, expect, it } from "vitest";
import type { ConformanceHarness } from "./harness.ts";
import { HOUR, kits, member } from "./kit.ts";

const WORKER = path.join(import.meta.dirname, "worker.ts");
const DAY = 24 * HOUR;

/** A receipt as a reader sees it, in a fixed order. */
const seen = async (roster: Roster, id: string) => {
  const receipt = await roster.receipt(id);
  if (!receipt.ok) throw new Error(receipt.error);
  const byId = (left: RecipientReceipt, right: RecipientReceipt) => left.id.localeCompare(right.id);
  return { recipients: [...receipt.recipients].sort(byId), warnings: receipt.warnings };
};

export function receiptRules(harness: ConformanceHarness) {
  const kit = kits(harness);
  const children = new Set<ChildProcess>();
  afterEach(() => {
    for (const child of children) child.kill("SIGKILL");
    children.clear();
  });

  describe(`receipts kept small on the ${harness.name} store`, () => {
    it("a held wake's mark reads back whole, loose and folded; the latest hold stands", async () => {
      const { roster, advance } = await kit();
      await roster.join(member("s1", "alice", 11));
      await roster.join(member("s2", "bob", 12));
      const sent = await roster.send({ from: "alice", to: "bob", body: "one" });
      if (!sent.ok) throw new Error(sent.error);
      const hold = (retryAfter: number) => ({ words: "6 wakes in the last minute", retryAfter });
      await roster.markWakeHeld("s2", [sent.id], "codex-queue", hold(Date.parse("2026-01-01")));
      const later = Date.parse("2026-01-01T00:01:00.000Z");
      expect(await roster.markWakeHeld("s2", [sent.id], "codex-queue", hold(later))).toEqual({
        ok: true,
        marked: [sent.id],
      });
      const loose = await seen(roster, sent.id);
      expect(loose.recipients.find((each) => each.id === "s2")?.wakeHeld).toMatchObject({
        how: "codex-queue",
        reason: "rate-limited",
        words: "6 wakes in the last minute",
        retryAfter: "2026-01-01T00:01:00.000Z",
      });
      await roster.markDelivered("s2", [sent.id], "inbox");
      await roster.ack("s2", [sent.id]);
      const before = await seen(roster, sent.id);
      advance(2 * 60_000);
      const folded = await roster.prune();
      expect(folded.ok && folded.compacted).toEqual([sent.id]);
      expect(await seen(roster, sent.id)).toEqual(before);
    });

    it("a member's wake slots: the policy's many, each free again once older than the window", async () => {
      const { roster, advance } = await kit();
      const rate = { slots: 2, free: (takenAt: number, now: number) => now - takenAt >= 60_000 };
      expect(await roster.takeWakeSlot("codex-m1", "waker", rate)).toEqual({ ok: true, slot: 0 });
      advance(1_000);
      // The same holder again: a slot it took is judged like anyone's, never "ours, take it".
      expect(await roster.takeWakeSlot("codex-m1", "waker", rate)).toEqual({ ok: true, slot: 1 });
      const full = await roster.takeWakeSlot("codex-m1", "waker", rate);
      expect(full).toMatchObject({ ok: false, reason: "rate-limited" });
      const takenAt = full.ok ? [] : full.reason === "rate-limited" ? full.takenAt : [];
      expect(takenAt[1]! - takenAt[0]!).toBe(1_000);
      // Another member's slots are its own.
      expect(await roster.takeWakeSlot("codex-m2", "waker", rate)).toMatchObject({ ok: true });
      advance(59_000);
      expect(await roster.takeWakeSlot("codex-m1", "other", rate)).toEqual({ ok: true, slot: 0 });
      expect(await roster.takeWakeSlot("codex-m1", "other", rate)).toMatchObject({ ok: false });
      expect(await roster.takeWakeSlot("../x", "other", rate)).toMatchObject({
        reason: "bad-input",
      });
    });

    it("a read message's receipt is folded whole, then removed after a day; unread mail's and a failed wake's stay", async () => {
      const { roster, advance } = await kit();
      await roster.join(member("s1", "alice", 11));
      await roster.join(member("s2", "bob", 12));
      const send = async (body: string) => {
        const sent = await roster.send({ from: "alice", to: "bob", body });
        if (!sent.ok) throw new Error(sent.error);
        return sent.id;
      };
      const [read, unread, failed] = [await send("one"), await send("two"), await send("three")];
      await roster.markDelivered("s2", [read, unread, failed], "inbox");
      await roster.markWakeFailed("s2", [failed], "codex-queue", "queue refused");
      await roster.ack("s2", [read, failed]);
      const before = await Promise.all([read, unread, failed].map((id) => seen(roster, id)));
      advance(2 * 60_000);
      const folded = await roster.prune();
      expect(folded.ok && folded.compacted.sort()).toEqual([read, failed].sort());
      expect(await Promise.all([read, unread, failed].map((id) => seen(roster, id)))).toEqual(
        before,
      );
      advance(DAY);
      const pruned = await roster.prune();
      expect(pruned.ok && pruned.cleared).toContain(`receipts/${read}`);
      expect(await seen(roster, read)).toEqual({ recipients: [], warnings: [] });
      expect(await seen(roster, unread)).toEqual(before[1]);
      expect(await seen(roster, failed)).toEqual(before[2]);
    });

    const kills = rounds(2, 30);
    it(`prunes SIGKILLed mid-fold ${kills} times while marks keep coming: no mark lost, every receipt whole`, async () => {
      const made = await kit();
      // Marked five minutes ago, so the real-time pruners find them settled long enough to fold.
      const roster = await made.team.open({
        clock: () => Date.now() - 5 * 60_000,
        processes: processFacts,
      });
      const me = { pid: process.pid, pidStart: processStart(process.pid) };
      for (const [id, label] of [
        ["s1", "alice"],
        ["s2", "bob"],
        ["s3", "carol"],
      ] as const)
        await roster.join({ ...member(id, label, process.pid), ...me, liveness: "process" });
      const ids: string[] = [];
      const expected = new Map<string, Awaited<ReturnType<typeof seen>>>();
      for (let round = 0; round < kills; round += 1) {
        // Eight new messages each round, read by bob; carol reads five; three wakes failed.
        const batch: string[] = [];
        for (let index = 0; index < 8; index += 1) {
          const sent = await roster.send({ from: "alice", to: "all", body: `${round}.${index}` });
          if (!sent.ok) throw new Error(sent.error);
          batch.push(sent.id);
        }
        await roster.markDelivered("s2", batch, "inbox");
        await roster.markWakeFailed("s3", batch.slice(0, 3), "codex-queue", "queue refused");
        await roster.ack("s2", batch);
        await roster.ack("s3", batch.slice(0, 5));
        ids.push(...batch);
        for (const id of batch) expected.set(id, await seen(roster, id));
        const pruners = [0, 1].map(() => {
          const args = [WORKER, made.team.worker.module, made.team.worker.config, "prune", "p"];
          const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
          children.add(child);
          return { child, queue: lineQueue(child.stdout!) };
        });
        for (const pruner of pruners) expect(JSON.parse(await pruner.queue.next())).toBe("pruning");
        // Marks that trail a read, made while the pruners fold: each that stands must survive.
        const late = batch[round % batch.length]!;
        await roster.markWoke("s2", [late], "pi");
        await roster.markWakeFailed("s2", [late], "pi", `round ${round}`);
        expected.set(late, await seen(roster, late));
        await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 150));
        for (const pruner of pruners) pruner.child.kill("SIGKILL");
        await Promise.all(
          pruners.map(
            (pruner) => new Promise((resolve) => pruner.child.once("exit", () => resolve(0))),
          ),
        );
        for (const each of ids)
          expect(await seen(roster, each), `round ${round}`).toEqual(expected.get(each));
      }
      const last = await made.team.open({ clock: Date.now, processes: processFacts });
      expect(await last.prune()).toMatchObject({ ok: true });
      for (const each of ids) expect(await seen(last, each)).toEqual(expected.get(each));
      // Folded once: a second prune finds nothing left to fold.
      expect(await last.prune()).toMatchObject({ ok: true, compacted: [] });
    }, 120_000);
  });
}
