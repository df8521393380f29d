// Prune, space by space, over the store: records that do not parse (once past the TTL), claims
// whose holders are gone, wake claims past their time, stale locks, and the mailboxes of nobody.
// Each entry is judged here and removed by compare-and-delete (or set aside, never deleted).
import { CLAIM_GRACE_MS } from "./_claim.js";
import { claimKey, parseClaim } from "./_claim-read.js";
import { removeClaim } from "./_claim-release.js";
import { type MovedMail, retireMailbox } from "./_expire.js";
import { isStaleLock, withMemberLock } from "./_lock.js";
import { loadRecord, unreadableState } from "./_members.js";
import { parseRecord } from "./_record.js";
import type { Listed, StoreSpace } from "./_store.js";
import type { Team } from "./_team.js";
import { validateId, validateKey } from "./_validate.js";

export type PruneResult =
  | {
      ok: true;
      removed: string[];
      cleared: string[];
      quarantined: string[];
      /** Unread mail of expired members (and orphan mailboxes), moved aside, never deleted. */
      expiredMail: MovedMail[];
      /**
       * Members that stopped answering but are not proven dead: kept until the TTL, and when that
       * is (`expiresInMs` from now), so prune can say when each will go and why.
       */
      kept: KeptMember[];
      /** Messages whose settled receipt was folded into one value (`receipts/<id>.json`). */
      compacted: string[];
      warnings: string[];
    }
  | { ok: false; reason: "roster-unknown" | "not-a-team"; error: string };

export type KeptMember = { id: string; label: string; reason: string; expiresInMs: number };

export type Report = Omit<Extract<PruneResult, { ok: true }>, "ok">;

/** A wake claim is kept this long; past it, it no longer stops a wake and prune removes it. */
export const WAKE_CLAIM_MS = 10 * 60_000;

/** Set an entry that is not what its space holds aside, named in the report. */
async function quarantine(
  team: Team,
  space: StoreSpace,
  entry: Pick<Listed, "key" | "name">,
  isJunk: (text: string | undefined) => boolean,
  report: Report,
) {
  const moved = await team.store.setAside(space, entry.key, isJunk).catch(() => false);
  if (moved) report.quarantined.push(`${space}/${entry.name}`);
}

const notARecord = (text: string | undefined) => text === undefined || !parseRecord(text).ok;
const notAClaim = (text: string | undefined) => text === undefined || !parseClaim(text).ok;

/** Records: the readable are kept; one that cannot be read goes aside only once past the TTL. */
export async function pruneRecords(team: Team, now: number, keep: Set<string>, report: Report) {
  const listing = await team.store.list("sessions");
  const junk: Pick<Listed, "key" | "name">[] = [...listing.unreadable];
  for (const entry of listing.entries) {
    // Only keys muster writes: session ids.
    if (!validateId(entry.key).ok) continue;
    const parsed = parseRecord(entry.stored.text);
    if (parsed.ok && parsed.value.id === entry.key) keep.add(entry.key);
    else junk.push(entry);
  }
  for (const entry of junk) {
    if (!validateId(entry.key).ok) continue;
    // Unreadable: set aside only once its record is older than the TTL (looked at again now).
    if (keep.has(entry.key) || (await unreadableState(team, entry.key, now)) === "unknown")
      continue;
    await quarantine(team, "sessions", entry, notARecord, report);
  }
}

/** Label claims: not a claim → aside; a holder neither kept nor within the grace → removed. */
export async function pruneClaims(team: Team, now: number, keep: Set<string>, report: Report) {
  const listing = await team.store.list("labels");
  for (const entry of listing.unreadable)
    if (validateKey(entry.key).ok) await quarantine(team, "labels", entry, notAClaim, report);
  for (const entry of listing.entries) {
    if (!validateKey(entry.key).ok) continue;
    const claim = parseClaim(entry.stored.text);
    if (!claim.ok) {
      await quarantine(team, "labels", entry, notAClaim, report);
      continue;
    }
    if (keep.has(claim.value.holder)) continue;
    if (now - Date.parse(claim.value.at) < CLAIM_GRACE_MS) continue;
    // Compare, then remove: only if it still names the holder judged gone.
    if (await removeClaim(team, "labels", claim.value.key, claim.value))
      report.cleared.push(`labels/${entry.name}`);
  }
}

/** Wake claims past WAKE_CLAIM_MS; a wake claim names a message, not a member to keep. */
export async function pruneWakes(team: Team, now: number, report: Report) {
  const listing = await team.store.list("wakes");
  const notAWake = (key: string) => (text: string | undefined) => {
    const claim = text === undefined ? undefined : parseClaim(text);
    return !claim?.ok || claimKey(claim.value.key) !== key;
  };
  for (const entry of listing.unreadable)
    if (validateKey(entry.key).ok)
      await quarantine(team, "wakes", entry, notAWake(entry.key), report);
  for (const entry of listing.entries) {
    if (!validateKey(entry.key).ok) continue;
    const claim = parseClaim(entry.stored.text);
    if (!claim.ok || claimKey(claim.value.key) !== entry.key) {
      await quarantine(team, "wakes", entry, notAWake(entry.key), report);
      continue;
    }
    // Kept while it may still hold; one dated further ahead than that is no wake that happened.
    if (Math.abs(now - Date.parse(claim.value.at)) <= WAKE_CLAIM_MS) continue;
    if (await removeClaim(team, "wakes", claim.value.key, claim.value))
      report.cleared.push(`wakes/${entry.name}`);
  }
}

/** Locks a crash left behind: stale by the lock rule, removed only if still the one judged. */
export async function pruneLocks(team: Team, now: number, report: Report) {
  const listing = await team.store.list("locks");
  for (const entry of listing.entries) {
    if (!isStaleLock(entry.stored.text, now)) continue;
    if (await team.store.remove("locks", entry.key, entry.stored.version))
      report.cleared.push(`locks/${entry.name}`);
  }
}

/** Mailboxes of nobody (no record), unchanged for the TTL: retired under the member's lock. */
export async function pruneMail(team: Team, keep: Set<string>, report: Report) {
  const listed = await team.store.mail.list();
  for (const stray of listed.strays) report.warnings.push(`${stray}; skipped`);
  const now = team.clock();
  for (const { member, changedAt } of listed.mailboxes) {
    if (keep.has(member) || now - changedAt <= team.policy.ttlMs) continue;
    // Re-checked under the member's lock: a join since the listing keeps its mailbox.
    const moved = await withMemberLock(team, member, async () => {
      if (await loadRecord(team, member)) return "kept";
      return (await retireMailbox(team, member)) ?? "cleared";
    });
    if (moved === undefined)
      report.warnings.push(`mail/${member} is busy; left for the next prune`);
    else if (moved !== "kept") {
      report.cleared.push(`mail/${member}`);
      if (moved !== "cleared") report.expiredMail.push(moved);
    }
  }
}
