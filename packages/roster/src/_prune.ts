// Prune: forget expired and proven-dead members (see `_expire.ts`), clear orphan claims, old wake
// claims and mailboxes, stale locks and the store's leftovers of interrupted writes, fold settled
// receipts and remove old ones (`_receipt-settle.ts`), quarantine
// entries that are not what their names say, and drop expired mail past its keeping time. It runs
// only on a team's store, removes nothing when the roster cannot be read, touches only what muster
// writes, and never fails on one bad entry.
import { CLAIM_GRACE_MS } from "./_claim.js";
import { errorText } from "./_error.js";
import { EXPIRED_KEEP_DAYS, forgetMember } from "./_expire.js";
import { isPrunable } from "./_liveness.js";
import { readTeam } from "./_members.js";
import {
  type PruneResult,
  pruneClaims,
  pruneLocks,
  pruneMail,
  pruneRecords,
  pruneWakes,
  type Report,
} from "./_prune-spaces.js";

export type { KeptMember, PruneResult } from "./_prune-spaces.js";
export { WAKE_CLAIM_MS } from "./_prune-spaces.js";

import { settleReceipts } from "./_receipt-settle.js";
import type { Team } from "./_team.js";

const DAY_MS = 86_400_000;

export async function prune(team: Team): Promise<PruneResult> {
  const ready = await team.store.ready().catch((error: unknown) => ({
    ok: false as const,
    error: errorText(error),
  }));
  if (!ready.ok) return { ok: false, reason: "not-a-team", error: ready.error };
  const read = await readTeam(team, { all: true });
  if (!read.ok) return { ok: false, reason: "roster-unknown", error: read.error };
  const report: Report = {
    removed: [],
    cleared: [],
    quarantined: [],
    expiredMail: [],
    kept: [],
    compacted: [],
    warnings: [...read.warnings],
  };
  // A record nobody here can read is unknown: it, its claims and its mailbox stay until the TTL.
  const keep = new Set<string>(
    read.unreadable.filter((entry) => entry.state === "unknown").map((entry) => entry.id),
  );
  // A member that is down keeps its mailbox: its mail waits there for its return.
  for (const held of await team.held().catch(() => [])) keep.add(held.id);
  for (const member of read.members) {
    if (!isPrunable(member)) {
      keep.add(member.id);
      if (member.state === "gone") {
        const expiresInMs = Math.max(0, team.policy.ttlMs - member.heartbeatAgeMs);
        report.kept.push({
          id: member.id,
          label: member.label,
          reason: member.reason,
          expiresInMs,
        });
      }
      continue;
    }
    const outcome = await forgetMember(team, member);
    if (outcome.forgot) report.removed.push(member.id);
    else keep.add(member.id);
    if (outcome.moved) report.expiredMail.push(outcome.moved);
    if (outcome.skipped) report.warnings.push(outcome.skipped);
  }
  const now = team.clock();
  const phases: [string, () => Promise<void>][] = [
    ["sessions", () => pruneRecords(team, now, keep, report)],
    ["labels", () => pruneClaims(team, now, keep, report)],
    ["wakes", () => pruneWakes(team, now, report)],
    ["locks", () => pruneLocks(team, now, report)],
    ["mail", () => pruneMail(team, keep, report)],
    ["expired", () => clearRetired(team, now, report)],
    ["receipts", () => settleReceipts(team, now, report)],
    ["receipts", () => merge(report, team.store.receipts.sweep(now))],
    ["leftovers", () => merge(report, team.store.sweep(now, CLAIM_GRACE_MS))],
  ];
  for (const [folder, phase] of phases) {
    try {
      await phase();
    } catch (error) {
      report.warnings.push(`${folder}/ ${errorText(error)}; skipped`);
    }
  }
  return { ok: true, ...report };
}

async function merge(report: Report, done: Promise<{ cleared: string[]; warnings: string[] }>) {
  const { cleared, warnings } = await done;
  report.cleared.push(...cleared);
  report.warnings.push(...warnings);
}

/** Retired mail kept past EXPIRED_KEEP_DAYS is dropped. */
async function clearRetired(team: Team, now: number, report: Report) {
  report.cleared.push(...(await team.store.mail.clearRetired(now - EXPIRED_KEEP_DAYS * DAY_MS)));
}
