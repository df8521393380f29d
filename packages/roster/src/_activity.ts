// A member's activity: what its agent is doing as its engine's signals said (core's rule decides
// the value; the roster keeps it), and when the person was last alerted about it. Changed under
// the member's lock, read, changed and written whole, so two receivers of one signal see the
// change once: the one whose write made it.
import { readClaim } from "./_claim-read.js";
import { withMemberLock } from "./_lock.js";
import { loadRecord } from "./_members.js";
import { type Activity, isActivity, isTime, isTrouble, type Trouble } from "./_record.js";
import { cannot, type Team } from "./_team.js";
import { validateId } from "./_validate.js";

/**
 * The part of a record an activity change reads and writes. A change that leaves `trouble` out
 * keeps the one recorded; `trouble: undefined` clears it.
 */
export type ActivityFields = {
  activity?: Activity | undefined;
  alertedAt?: string | undefined;
  trouble?: Trouble | undefined;
};

/** What to write instead, or undefined to leave the record as it is. */
export type ActivityChange = (current: ActivityFields) => ActivityFields | undefined;

export type ActivityResult =
  | { ok: true; written: boolean; before: ActivityFields; after: ActivityFields }
  | {
      ok: false;
      reason: "lost" | "bad-id" | "bad-input" | "busy" | "unwritable";
      error: string;
      fix?: string | undefined;
    };

const valid = (fields: ActivityFields) =>
  (fields.activity === undefined || isActivity(fields.activity)) &&
  (fields.alertedAt === undefined || isTime(fields.alertedAt)) &&
  (fields.trouble === undefined || isTrouble(fields.trouble));

/** Change what the member's record says of its activity; `lost` when it is no longer on the team. */
export async function changeActivity(
  team: Team,
  id: string,
  change: ActivityChange,
): Promise<ActivityResult> {
  const checked = validateId(id);
  if (!checked.ok) return { ok: false, reason: "bad-id", error: checked.error, fix: checked.fix };
  try {
    // Under the member's lock: a join renaming this member between our read of its record and our
    // write would otherwise be undone (the record back on the old label, the claims on the new),
    // and two receivers of one signal would each see the change as theirs.
    const result = await withMemberLock(team, id, () => changeLocked(team, id, change));
    return (
      result ?? {
        ok: false,
        reason: "busy",
        error: `session ${id} is being changed by another process right now`,
        fix: "report it again in a moment",
      }
    );
  } catch (error) {
    return {
      ok: false,
      reason: "unwritable",
      error: cannot(team, "write", error),
    };
  }
}

async function changeLocked(
  team: Team,
  id: string,
  change: ActivityChange,
): Promise<ActivityResult> {
  const record = await loadRecord(team, id);
  const claim = record ? await readClaim(team, "labels", record.label) : undefined;
  if (!record || claim === undefined || claim === "unreadable" || claim.holder !== id)
    return { ok: false, reason: "lost", error: `session ${id} is no longer on the team` };
  const before: ActivityFields = {
    activity: record.activity,
    alertedAt: record.alertedAt,
    ...(record.trouble ? { trouble: record.trouble } : {}),
  };
  const after = change(before);
  if (after === undefined) return { ok: true, written: false, before, after: before };
  if (!valid(after))
    return { ok: false, reason: "bad-input", error: "not an activity a record can hold" };
  // The heartbeat it carries is the one it had (an engine that reports is kept live by its process).
  const text = `${JSON.stringify({ ...record, ...after })}\n`;
  await team.store.put("sessions", id, text);
  return { ok: true, written: true, before, after };
}
