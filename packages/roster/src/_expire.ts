// Forgetting a member: under the member's lock (the one a join takes), re-check that it is still
// the member prune judged expired, release its claim by compare-then-remove, and move its unread
// mail aside to expired/<day>/<id>/ (kept EXPIRED_KEEP_DAYS, then removed by prune), never delete it.
import { releaseClaim } from "./_claim.js";
import { ensureFolders, errorCode, listFolder, uniqueName, unlinkIfPresent } from "./_fs.js";
import { memberState } from "./_liveness.js";
import { withMemberLock } from "./_lock.js";
import { loadRecord, recordTime } from "./_members.js";
import type { Team } from "./_team.js";

/** Unread mail moved aside by prune is kept this many days, then removed. */
export const EXPIRED_KEEP_DAYS = 7;

export type MovedMail = { id: string; label?: string | undefined; unread: number; folder: string };

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** How many regular message files wait in a new/ folder. */
async function unreadFiles(team: Team, folder: string): Promise<number> {
  const names = await listFolder(team.fs, folder).catch(() => []);
  return names.filter((name) => name.endsWith(".json") && !name.startsWith(".")).length;
}

/**
 * Retire `id`'s mailbox: move the whole folder aside in one rename (a send racing it then fails
 * whole, with no receipt, rather than landing in a folder about to be removed), keep its unread
 * mail as expired/<day>/<id>/, and remove the rest (read mail and write leftovers). Undefined when
 * there was no unread mail.
 */
export async function retireMailbox(team: Team, id: string): Promise<MovedMail | undefined> {
  const today = day(team.clock());
  await ensureFolders(team.fs, [team.paths.expired, team.paths.expiredFolder(today)]);
  const retiring = team.paths.expiredMailbox(today, `.${id}-${uniqueName(team.clock())}.retiring`);
  try {
    await team.fs.rename(team.paths.mailbox(id), retiring);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  let moved: MovedMail | undefined;
  const unread = await unreadFiles(team, `${retiring}/new`);
  if (unread > 0) {
    let name = id;
    try {
      await team.fs.rename(`${retiring}/new`, team.paths.expiredMailbox(today, name));
    } catch (error) {
      if (errorCode(error) !== "EEXIST" && errorCode(error) !== "ENOTEMPTY") throw error;
      name = `${id}-${uniqueName(team.clock())}`;
      await team.fs.rename(`${retiring}/new`, team.paths.expiredMailbox(today, name));
    }
    moved = { id, unread, folder: `expired/${today}/${name}` };
  }
  await team.fs.removeTree(retiring);
  return moved;
}

/**
 * Forget an expired member, if it is still expired under its lock: its claim, record and mailbox.
 * Answers what happened, or why nothing did.
 */
export async function forgetMember(
  team: Team,
  judged: { id: string; label: string; heartbeatAt: string },
): Promise<{ forgot: boolean; moved?: MovedMail | undefined; skipped?: string | undefined }> {
  const done = await withMemberLock(team, judged.id, async () => {
    const record = await loadRecord(team, judged.id);
    if (!record) return { forgot: false };
    const now = team.clock();
    const fileTime = () => recordTime(team, record.id, now);
    const state = await memberState(record, now, team.policy, team.processes, fileTime);
    // Re-joined or beat since prune looked: it is not the member prune judged.
    if (record.heartbeatAt !== judged.heartbeatAt || state.state !== "expired")
      return { forgot: false };
    await releaseClaim(team, "labels", record.label, record.id);
    await unlinkIfPresent(team.fs, team.paths.recordFile(record.id));
    const moved = await retireMailbox(team, record.id);
    return { forgot: true, moved: moved && { ...moved, label: record.label } };
  });
  return (
    done ?? {
      forgot: false,
      skipped: `sessions/${judged.id}.json is busy; left for the next prune`,
    }
  );
}
