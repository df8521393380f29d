// `muster send --wait`: after a send, wait until every recipient reached the phase asked for
// (delivered, or acknowledged), watching the message's receipt folder rather than polling it.
// Which phase counts is core's rule (waitReport); this file only watches and reads.
import { type WaitGoal, type WaitReport, waitReport } from "@muster/core";
import type { Roster } from "@muster/roster";
import { watchInbox } from "@muster/wiring";
import { UsageError } from "./_context.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** `--timeout`: 30s, 2m, 500ms, or plain seconds; 0 looks once and does not wait. */
export function parseTimeout(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/u.exec(text.trim());
  if (!match)
    throw new UsageError(`--timeout takes a duration like 30s, 2m or 500ms, not "${text}"`);
  const ms = Number(match[1]) * (UNITS[match[2] ?? "s"] as number);
  if (ms > 3_600_000) throw new UsageError("--timeout must be at most 1h");
  return Math.round(ms);
}

/**
 * Wait up to `timeoutMs` for every recipient of `messageId` to meet `goal`. A file event in the
 * receipt folder re-reads it; a slow sweep covers a missed event. Ends early on SIGINT/SIGTERM.
 */
export async function waitForReceipts(
  roster: Roster,
  messageId: string,
  recipients: readonly { id: string; label: string }[],
  goal: WaitGoal,
  timeoutMs: number,
): Promise<WaitReport> {
  const look = async () => {
    const receipt = await roster.receipt(messageId);
    return waitReport(recipients, receipt.ok ? receipt.recipients : [], goal);
  };
  let report = await look();
  if (report.done || timeoutMs <= 0) return report;
  return new Promise<WaitReport>((resolve) => {
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      watch.close();
      process.off("SIGINT", finish);
      process.off("SIGTERM", finish);
      resolve(report);
    };
    const watch = watchInbox({
      folder: () => roster.receiptFolder(messageId),
      read: async () => {
        if (finished) return;
        report = await look();
        if (report.done) finish();
      },
      sweepMs: 1000,
      keepAlive: true,
      onError: () => undefined,
    });
    const timer = setTimeout(finish, timeoutMs);
    process.on("SIGINT", finish);
    process.on("SIGTERM", finish);
    // A mark written between the first look and the watch is read now, not at the next sweep.
    watch.sweep().catch(() => undefined);
  });
}
