// Forgetting a member: under the member's lock (the one a join takes), re-check that it is still
// the member prune judged expired or dead, release its claim by compare-and-delete, forward its
// unread mail to whoever holds its label now (if another does), and retire its mailbox (unread mail
// kept aside for EXPIRED_KEEP_DAYS, then removed by prune), never delete it.
import { releaseClaim } from "./_claim-release.js";
import { forwardUnread, labelSuccessor } from "./_forward.js";
import { isPrunable, memberState } from "./_liveness.js";
import { withMemberLock } from "./_lock.js";
import { loadRecordEntry, recordTime } from "./_members.js";
import type { Team } from "./_team.js";

/** Unread mail moved aside by prune is kept this many days, then removed. */
export const EXPIRED_KEEP_DAYS = 7;

export type MovedMail = { id: string; label?: string | undefined; unread: number; folder: string };

/** Retire `id`'s mailbox in the store: what unread mail was kept aside, and where. */
export async function retireMailbox(team: Team, id: string): Promise<MovedMail | undefined> {
  const retired = await team.store.mail.retire(id, team.clock());
  return retired && { id, unread: retired.unread, folder: retired.where };
}

/**
 * Forget an expired or proven-dead member, if it still is under its lock: its claim, record and
 * mailbox. Answers what happened, or why nothing did.
 */
export async function forgetMember(
  team: Team,
  judged: { id: string; label: string; heartbeatAt: string },
): Promise<{ forgot: boolean; moved?: MovedMail | undefined; skipped?: string | undefined }> {
  const done = await withMemberLock(team, judged.id, async () => {
    const entry = await loadRecordEntry(team, judged.id);
    if (!entry) return { forgot: false };
    const { record } = entry;
    const now = team.clock();
    const fileTime = () => recordTime(team, record.id, now);
    const state = await memberState(record, now, team.policy, team.processes, fileTime);
    // Re-joined or beat since prune looked: it is not the member prune judged.
    if (record.heartbeatAt !== judged.heartbeatAt || !isPrunable(state)) return { forgot: false };
    await releaseClaim(team, "labels", record.label, record.id);
    // Its label has a holder now that nobody retired it to (a winner that crashed first, a join
    // still on its way): the unread mail goes there, as on a takeover, never to expired/.
    const successor = await labelSuccessor(team, record.id, record.label);
    if (successor === "wait")
      return {
        forgot: false,
        skipped: `${record.id}'s label is being joined; left for the next prune`,
      };
    if (successor) {
      const from = { id: record.id, label: record.label };
      const { left } = await forwardUnread(team, from, successor.forward);
      if (left > 0)
        return {
          forgot: false,
          skipped: `${left} unread message(s) of ${record.id} could not be forwarded to ${successor.forward}; left for the next prune`,
        };
    }
    await team.store.remove("sessions", record.id, entry.version);
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
