// Prune: forget expired members (see `_expire.ts`), clear orphan claims, old wake claims and
// mailboxes and the leftovers of interrupted writes (the board's and the claim spaces' too),
// quarantine entries that are not what their names say, and drop expired mail past its keeping
// time. It runs only in a marked team folder, removes nothing when the roster cannot be read,
// touches only names muster writes, and never fails on one bad entry.
import { CLAIM_GRACE_MS, claimKey, parseClaim, removeClaim } from "./_claim.js";
import { EXPIRED_KEEP_DAYS, forgetMember, type MovedMail, retireMailbox } from "./_expire.js";
import {
  errorCode,
  errorText,
  isOwnTempName,
  isTempName,
  listFolder,
  readIfPresent,
  uniqueName,
  unlinkIfPresent,
} from "./_fs.js";
import { LOCK_STALE_MS, withMemberLock } from "./_lock.js";
import { loadRecord, readTeam } from "./_members.js";
import { pruneReceipts } from "./_receipts.js";
import { parseRecord } from "./_record.js";
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
      warnings: string[];
    }
  | { ok: false; reason: "roster-unknown" | "not-a-team"; error: string };

type Report = Omit<Extract<PruneResult, { ok: true }>, "ok">;

const DAY_MS = 86_400_000;

export async function prune(team: Team): Promise<PruneResult> {
  const marker = await readIfPresent(team.fs, team.paths.marker).catch(() => undefined);
  if (marker === undefined)
    return {
      ok: false,
      reason: "not-a-team",
      error: `${team.paths.dir} is not a muster team folder`,
    };
  const read = await readTeam(team, { all: true });
  if (!read.ok) return { ok: false, reason: "roster-unknown", error: read.error };
  const report: Report = {
    removed: [],
    cleared: [],
    quarantined: [],
    expiredMail: [],
    warnings: [...read.warnings],
  };
  const keep = new Set<string>();
  for (const member of read.members) {
    if (member.state !== "expired") {
      keep.add(member.id);
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
    ["board", () => pruneTempLeftovers(team, "board", now, report)],
    ...(["cards", "leases", "wakes"] as const).map((space): [string, () => Promise<void>] => [
      space,
      () => pruneTempLeftovers(team, space, now, report),
    ]),
    ["mail", () => pruneMail(team, now, keep, report)],
    ["expired", () => pruneExpired(team, now, report)],
    ["receipts", () => pruneReceipts(team, now, report)],
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

/** Move an entry that is not what its name says to quarantine/, named in the report. */
async function quarantine(team: Team, folder: string, name: string, now: number, report: Report) {
  const moved = await team.fs
    .rename(
      `${team.paths.dir}/${folder}/${name}`,
      team.paths.quarantineFile(`${uniqueName(now)}-${name}`),
    )
    .then(
      () => true,
      () => false,
    );
  if (moved) report.quarantined.push(`${folder}/${name}`);
}

async function pruneRecords(team: Team, now: number, keep: Set<string>, report: Report) {
  for (const name of await listFolder(team.fs, team.paths.sessions)) {
    const file = `${team.paths.sessions}/${name}`;
    if (isTempName(name)) {
      if (await clearIfOld(team, file, now, CLAIM_GRACE_MS))
        report.cleared.push(`sessions/${name}`);
      continue;
    }
    // Only names muster writes: <id>.json.
    if (!name.endsWith(".json") || !validateId(name.slice(0, -5)).ok) continue;
    const text = await readIfPresent(team.fs, file).catch(() => null);
    if (text === undefined) continue;
    const parsed = text === null ? undefined : parseRecord(text);
    if (parsed?.ok && `${parsed.value.id}.json` === name) {
      keep.add(parsed.value.id);
      continue;
    }
    await quarantine(team, "sessions", name, now, report);
  }
}

async function pruneClaims(team: Team, now: number, keep: Set<string>, report: Report) {
  const folder = team.paths.claimFolder("labels");
  for (const name of await listFolder(team.fs, folder)) {
    const file = `${folder}/${name}`;
    if (isTempName(name)) {
      if (await clearIfOld(team, file, now, CLAIM_GRACE_MS)) report.cleared.push(`labels/${name}`);
      continue;
    }
    if (!name.endsWith(".json") || !validateKey(name.slice(0, -5)).ok) continue;
    const text = await readIfPresent(team.fs, file).catch(() => null);
    if (text === undefined) continue;
    const claim = text === null ? undefined : parseClaim(text);
    if (!claim?.ok) {
      await quarantine(team, "labels", name, now, report);
      continue;
    }
    if (keep.has(claim.value.holder)) continue;
    if (now - Date.parse(claim.value.at) < CLAIM_GRACE_MS) continue;
    // Compare, then remove: only if it still names the holder judged gone.
    if (await removeClaim(team, "labels", claim.value.key, claim.value))
      report.cleared.push(`labels/${name}`);
  }
}

/** A wake claim is kept this long; past it, it no longer stops a wake and prune removes it. */
export const WAKE_CLAIM_MS = 10 * 60_000;

/** Wake claims past WAKE_CLAIM_MS; a wake claim names a message, not a member to keep. */
async function pruneWakes(team: Team, now: number, report: Report) {
  const folder = team.paths.claimFolder("wakes");
  for (const name of await listFolder(team.fs, folder)) {
    const file = `${folder}/${name}`;
    if (isTempName(name)) continue; // a leftover: pruneTempLeftovers' to clear
    // Only names muster writes: <key>.json.
    if (!name.endsWith(".json") || !validateKey(name.slice(0, -5)).ok) continue;
    const text = await readIfPresent(team.fs, file).catch(() => null);
    if (text === undefined) continue;
    const claim = text === null ? undefined : parseClaim(text);
    if (!claim?.ok || `${claimKey(claim.value.key)}.json` !== name) {
      await quarantine(team, "wakes", name, now, report);
      continue;
    }
    if (now - Date.parse(claim.value.at) <= WAKE_CLAIM_MS) continue;
    if (await removeClaim(team, "wakes", claim.value.key, claim.value))
      report.cleared.push(`wakes/${name}`);
  }
}

async function pruneLocks(team: Team, now: number, report: Report) {
  for (const name of await listFolder(team.fs, team.paths.locks)) {
    if (!name.endsWith(".lock") && !isTempName(name)) continue;
    if (await clearIfOld(team, `${team.paths.locks}/${name}`, now, LOCK_STALE_MS))
      report.cleared.push(`locks/${name}`);
  }
}

/**
 * The leftovers of interrupted writes in a folder of whole files (the board, a claim space): only
 * regular files named as muster names its temp files, once older than any write in progress.
 */
async function pruneTempLeftovers(team: Team, folder: string, now: number, report: Report) {
  const path = `${team.paths.dir}/${folder}`;
  for (const name of await listFolder(team.fs, path)) {
    if (!isOwnTempName(name)) continue;
    const facts = await team.fs.lstat(`${path}/${name}`).catch(() => undefined);
    if (!facts || facts.isSymbolicLink || facts.isDirectory) continue;
    if (await clearIfOld(team, `${path}/${name}`, now, CLAIM_GRACE_MS))
      report.cleared.push(`${folder}/${name}`);
  }
}

async function pruneMail(team: Team, now: number, keep: Set<string>, report: Report) {
  for (const id of await listFolder(team.fs, team.paths.mail)) {
    if (!validateId(id).ok) continue;
    const mailbox = team.paths.mailbox(id);
    const facts = await team.fs.lstat(mailbox).catch(() => undefined);
    if (!facts?.isDirectory || facts.isSymbolicLink) {
      report.warnings.push(`mail/${id} is not a folder; skipped`);
      continue;
    }
    if (!keep.has(id) && (await olderThan(team, mailbox, now, team.policy.ttlMs, ["new", "cur"]))) {
      // Re-checked under the member's lock: a join since the listing keeps its mailbox.
      const moved = await withMemberLock(team, id, async () => {
        if (await loadRecord(team, id)) return "kept";
        return (await retireMailbox(team, id)) ?? "cleared";
      });
      if (moved === undefined) report.warnings.push(`mail/${id} is busy; left for the next prune`);
      else if (moved !== "kept") {
        report.cleared.push(`mail/${id}`);
        if (moved !== "cleared") report.expiredMail.push(moved);
      }
      continue;
    }
    const tmp = team.paths.mailTmp(id);
    for (const name of await listFolder(team.fs, tmp).catch(() => [])) {
      if (await clearIfOld(team, `${tmp}/${name}`, now, CLAIM_GRACE_MS))
        report.cleared.push(`mail/${id}/tmp/${name}`);
    }
  }
}

/** expired/<YYYY-MM-DD>/ folders older than EXPIRED_KEEP_DAYS are removed. */
async function pruneExpired(team: Team, now: number, report: Report) {
  for (const name of await listFolder(team.fs, team.paths.expired)) {
    const dated = /^\d{4}-\d{2}-\d{2}$/.test(name)
      ? Date.parse(`${name}T00:00:00.000Z`)
      : Number.NaN;
    if (Number.isNaN(dated) || now - dated < (EXPIRED_KEEP_DAYS + 1) * DAY_MS) continue;
    const facts = await team.fs.lstat(team.paths.expiredFolder(name)).catch(() => undefined);
    if (!facts?.isDirectory || facts.isSymbolicLink) continue;
    await team.fs.removeTree(team.paths.expiredFolder(name));
    report.cleared.push(`expired/${name}`);
  }
}

async function clearIfOld(team: Team, file: string, now: number, ms: number): Promise<boolean> {
  const facts = await team.fs.lstat(file).catch(() => undefined);
  if (!facts || facts.isDirectory || now - facts.mtimeMs <= ms) return false;
  return unlinkIfPresent(team.fs, file).catch((error: unknown) => {
    if (errorCode(error) === "EISDIR" || errorCode(error) === "EPERM") return false;
    throw error;
  });
}

/** Whether a folder (and the named sub-folders) was last changed before `now - ms`. */
async function olderThan(team: Team, path: string, now: number, ms: number, subfolders: string[]) {
  try {
    let newest = (await team.fs.lstat(path)).mtimeMs;
    for (const sub of subfolders) {
      const facts = await team.fs.lstat(`${path}/${sub}`).catch(() => undefined);
      if (facts) newest = Math.max(newest, facts.mtimeMs);
    }
    return now - newest > ms;
  } catch {
    return false;
  }
}
