// Receipt figures: what a receipt adds to a send (the written mark) against a send's own mailbox
// write, one delivered mark against a bare whole-file write, reading a message's receipt, and how
// soon a waiting sender (a watch on the receipt folder, as `send --wait` does) sees the mark.
// (The watch is node's own here: the CLI's goes through @muster/wiring's watchInbox, the same call.)
import { mkdtempSync, renameSync, rmSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { nodeFs, processFacts } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import { type BenchRow, compare, percentile } from "../src/bench-kit.ts";

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-bench-receipts-"));
  try {
    const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: processFacts });
    if (!opened.ok) throw new Error(opened.error);
    const roster = opened.roster;
    for (const [id, label] of [
      ["s1", "alice"],
      ["s2", "bob"],
    ] as const)
      await roster.join({
        id: id,
        label,
        agent: "bench",
        pid: process.pid,
        watching: { armed: true, wake: false },
        liveness: "heartbeat",
      });
    let sent = 0;
    const send = async () => {
      sent += 1;
      const receipt = await roster.send({ from: "s1", to: "bob", body: "x", id: `m${sent}` });
      if (!receipt.ok) throw new Error(receipt.error);
      return receipt.id;
    };
    const scratch = path.join(dir, "scratch");
    await nodeFs.mkdir(scratch, 0o700);
    const bare = () => {
      writeFileSync(path.join(scratch, ".a.tmp"), "{}", { mode: 0o600 });
      renameSync(path.join(scratch, ".a.tmp"), path.join(scratch, "a.json"));
    };
    const sending = await compare(send, bare, { runs: 101 });
    let marked = 0;
    const mark = await compare(
      async () => {
        marked += 1;
        await roster.markDelivered("s2", [`m${marked}`], "bench");
      },
      bare,
      { runs: 101 },
    );
    const reading = await compare(async () => {
      const receipt = await roster.receipt("m1");
      if (!receipt.ok || receipt.recipients.length === 0) throw new Error("no receipt");
    }, bare);
    const seen = await waitLatency(roster);
    return [
      {
        name: "receipts: send to one member, with its written mark",
        medianMs: sending.figureMs,
        reference: { name: "1 bare whole-file write", medianMs: sending.referenceMs },
      },
      {
        name: "receipts: mark one message delivered",
        medianMs: mark.figureMs,
        reference: { name: "1 bare whole-file write", medianMs: mark.referenceMs },
      },
      {
        name: "receipts: read a message's receipt",
        medianMs: reading.figureMs,
        reference: { name: "1 bare whole-file write", medianMs: reading.referenceMs },
      },
      {
        name: "receipts: delivered mark → a waiting sender sees it (watch), p50",
        medianMs: seen.p50,
        target: { text: "< 50 ms (the sweep fallback is 1 s)", met: seen.p50 < 50 },
        note: `p95 ${seen.p95.toFixed(1)} ms, ${seen.runs} runs`,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Mark a fresh message delivered while a watch on its receipt folder waits, as send --wait does. */
async function waitLatency(roster: Roster) {
  const times: number[] = [];
  for (let run = 0; run < 30; run += 1) {
    const sent = await roster.send({ from: "s1", to: "bob", body: "x" });
    if (!sent.ok) throw new Error(sent.error);
    let markedAt = 0;
    await new Promise<void>((resolve) => {
      // What send --wait's watch does on each event: read the receipt, done once it is delivered.
      const watcher = watch(roster.receiptFolder(sent.id)!, () => {
        void roster.receipt(sent.id).then((receipt) => {
          if (markedAt === 0 || !(receipt.ok && receipt.recipients[0]?.phases.delivered)) return;
          times.push(performance.now() - markedAt);
          markedAt = 0;
          watcher.close();
          resolve();
        });
      });
      setTimeout(() => {
        markedAt = performance.now();
        void roster.markDelivered("s2", [sent.id], "bench");
      }, 20);
    });
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95), runs: times.length };
}
