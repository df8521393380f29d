// Staying on the team and leaving it: a heartbeat refreshes the record while the member still
// holds its label; leaving releases the label and the record. Unread mail stays until pruned.
import { readClaim } from "./_claim-read.js";
import { releaseClaim } from "./_claim-release.js";
import { withMemberLock } from "./_lock.js";
import { loadRecord, readRecordEntry } from "./_members.js";
import type { Ended } from "./_record.js";
import { cannot, iso, type Team } from "./_team.js";
import { validateId } from "./_validate.js";

export type MembershipRefusal = "lost" | "bad-id" | "busy" | "unwritable";

export type HeartbeatResult =
  | { ok: true; label: string }
  | { ok: false; reason: MembershipRefusal; error: string; fix: string };

export type LeaveResult =
  | { ok: true; left: boolean }
  | { ok: false; reason: Exclude<MembershipRefusal, "lost" | "busy">; error: string; fix: string };

/** What to do about each refusal: defined here, beside the checks; composers join it to the error. */
export const MEMBERSHIP_FIXES: Record<MembershipRefusal, string> = {
  lost: "join the team again",
  "bad-id": "give the session's own id (the roster lists them)",
  busy: "try again in a moment",
  unwritable: "check the team folder is writable (space, permissions)",
};

const refuse = <Reason extends MembershipRefusal>(reason: Reason, error: string) => ({
  ok: false as const,
  reason,
  error,
  fix: MEMBERSHIP_FIXES[reason],
});

const unwritable = (team: Team, error: unknown) =>
  refuse("unwritable", cannot(team, "write", error));

/** The member's record; a read that fails is said as such (`unread`), never as "not there". */
async function ownRecord(team: Team, id: string) {
  try {
    return { record: (await readRecordEntry(team, id))?.record };
  } catch (error) {
    return { unread: refuse("unwritable", cannot(team, "read", error)) };
  }
}

/** Refresh a member's record. `lost` when the record is gone or its label was taken over. */
export async function heartbeat(team: Team, id: string): Promise<HeartbeatResult> {
  const valid = validateId(id);
  if (!valid.ok) return refuse("bad-id", valid.error);
  // Under the member's lock: a join renaming this member between our read of its record and our
  // write would otherwise be undone (the record back on the old label, the claims on the new).
  try {
    const done = await withMemberLock(team, id, () => beat(team, id));
    return done ?? refuse("busy", `session ${id} is being changed by another process right now`);
  } catch (error) {
    return unwritable(team, error);
  }
}

async function beat(team: Team, id: string): Promise<HeartbeatResult> {
  try {
    const { record, unread } = await ownRecord(team, id);
    if (unread) return unread;
    if (!record) return refuse("lost", `session ${id} is no longer on the team`);
    const claim = await readClaim(team, "labels", record.label);
    if (claim === undefined || claim === "unreadable" || claim.holder !== id) {
      return refuse("lost", `label "${record.label}" is no longer held by session ${id}`);
    }
    const text = `${JSON.stringify({ ...record, heartbeatAt: iso(team.clock()) })}\n`;
    await team.store.put("sessions", id, text);
    return { ok: true, label: record.label };
  } catch (error) {
    return unwritable(team, error);
  }
}

/** Release the label and the record. Unread mail stays readable by this id until pruned. */
export async function leave(team: Team, id: string): Promise<LeaveResult> {
  const valid = validateId(id);
  if (!valid.ok) return refuse("bad-id", valid.error);
  return depart(team, id);
}

async function depart(team: Team, id: string): Promise<LeaveResult> {
  try {
    const { record, unread } = await ownRecord(team, id);
    if (unread) return unread;
    if (!record) return { ok: true, left: false };
    await releaseClaim(team, "labels", record.label, id);
    await team.store.remove("sessions", id);
    return { ok: true, left: true };
  } catch (error) {
    return unwritable(team, error);
  }
}

export type EndingResult =
  | { ok: true; marked: boolean }
  | { ok: false; reason: Exclude<MembershipRefusal, "lost">; error: string; fix: string };

/**
 * Mark a member as ended on purpose (`muster stop`, `muster down`), before its process is ended:
 * its death is then not a crash. `marked: false` when it has no record (nothing to mark).
 */
export async function markEnding(team: Team, id: string, by: Ended["by"]): Promise<EndingResult> {
  const valid = validateId(id);
  if (!valid.ok) return refuse("bad-id", valid.error);
  try {
    const done = await withMemberLock(team, id, async () => {
      const record = await loadRecord(team, id);
      if (!record) return { ok: true as const, marked: false };
      const ended: Ended = { at: iso(team.clock()), by };
      await team.store.put("sessions", id, `${JSON.stringify({ ...record, ended })}\n`);
      return { ok: true as const, marked: true };
    });
    return done ?? refuse("busy", `session ${id} is being changed by another process right now`);
  } catch (error) {
    return unwritable(team, error);
  }
}
