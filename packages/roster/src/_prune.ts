// Prune: forget expired members (record, claim, mailbox), clear orphan claims and mailboxes, and
// the leftovers of interrupted writes; move records that do not parse to quarantine/. Nothing is
// removed when the roster cannot be read, and a claim is removed only if it still names the holder
// prune judged (compare, then remove).
import { CLAIM_GRACE_MS, parseClaim, releaseClaim, removeClaim } from "./_claim.js";
import { isTempName, listFolder, readIfPresent, uniqueName, unlinkIfPresent } from "./_fs.js";
import { LOCK_STALE_MS } from "./_lock.js";
import { readTeam } from "./_members.js";
import { parseRecord } from "./_record.js";
import type { Team } from "./_team.js";

export type PruneResult =
  | { ok: true; removed: string[]; cleared: string[]; quarantined: string[]; warnings: string[] }
  | { ok: false; reason: "roster-unknown"; error: string };

type Report = { removed: string[]; cleared: string[]; quarantined: string[]; warnings: string[] };

export async function prune(team: Team): Promise<PruneResult> {
  const read = await readTeam(team, { all: true });
  if (!read.ok) return { ok: false, reason: "roster-unknown", error: read.error };
  const now = team.clock();
  const report: Report = {
    removed: [],
    cleared: [],
    quarantined: [],
    warnings: [...read.warnings],
  };
  const keep = new Set<string>();
  for (const member of read.members) {
    if (member.state !== "expired") {
      keep.add(member.id);
      continue;
    }
    await releaseClaim(team, "labels", member.label, member.id);
    await unlinkIfPresent(team.fs, team.paths.recordFile(member.id));
    await team.fs.removeTree(team.paths.mailbox(member.id));
    report.removed.push(member.id);
  }
  await pruneRecords(team, now, keep, report);
  await pruneClaims(team, now, keep, report);
  for (const name of await listFolder(team.fs, team.paths.locks)) {
    if (await clearIfOld(team, `${team.paths.locks}/${name}`, now, LOCK_STALE_MS))
      report.cleared.push(`locks/${name}`);
  }
  await pruneMail(team, now, keep, report);
  return { ok: true, ...report };
}

async function pruneRecords(team: Team, now: number, keep: Set<string>, report: Report) {
  for (const name of await listFolder(team.fs, team.paths.sessions)) {
    const file = `${team.paths.sessions}/${name}`;
    if (isTempName(name)) {
      if (await clearIfOld(team, file, now, CLAIM_GRACE_MS))
        report.cleared.push(`sessions/${name}`);
      continue;
    }
    const text = await readIfPresent(team.fs, file);
    if (text === undefined) continue;
    const parsed = parseRecord(text);
    if (parsed.ok && `${parsed.value.id}.json` === name) {
      keep.add(parsed.value.id);
      continue;
    }
    await team.fs.rename(file, team.paths.quarantineFile(`${uniqueName(now)}-${name}`));
    report.quarantined.push(`sessions/${name}`);
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
    const text = await readIfPresent(team.fs, file);
    const claim = text === undefined ? undefined : parseClaim(text);
    if (!claim?.ok) continue;
    if (keep.has(claim.value.holder)) continue;
    if (now - Date.parse(claim.value.at) < CLAIM_GRACE_MS) continue;
    if (await removeClaim(team, "labels", claim.value.key, claim.value))
      report.cleared.push(`labels/${name}`);
  }
}

async function pruneMail(team: Team, now: number, keep: Set<string>, report: Report) {
  for (const id of await listFolder(team.fs, team.paths.mail)) {
    const mailbox = team.paths.mailbox(id);
    if (!keep.has(id) && (await olderThan(team, mailbox, now, team.policy.ttlMs, ["new", "cur"]))) {
      await team.fs.removeTree(mailbox);
      report.cleared.push(`mail/${id}`);
      continue;
    }
    for (const name of await listFolder(team.fs, team.paths.mailTmp(id))) {
      if (await clearIfOld(team, `${team.paths.mailTmp(id)}/${name}`, now, CLAIM_GRACE_MS))
        report.cleared.push(`mail/${id}/tmp/${name}`);
    }
  }
}

async function clearIfOld(team: Team, file: string, now: number, ms: number): Promise<boolean> {
  return (await olderThan(team, file, now, ms)) && unlinkIfPresent(team.fs, file);
}

/** Whether a path (and, for a folder, the named sub-folders) was last changed before `now - ms`. */
async function olderThan(
  team: Team,
  path: string,
  now: number,
  ms: number,
  subfolders: string[] = [],
): Promise<boolean> {
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
