// Joining: claim the label (the general claim, judged by the holder's record), write the record
// and the mailbox, release a previous label on a rename. A label held by a proven-dead or expired
// holder is taken over; one held by a live or merely silent holder is refused with the reason.
import {
  CLAIM_GRACE_MS,
  type Claim,
  type ClaimVerdict,
  readClaim,
  releaseClaim,
  takeClaim,
} from "./_claim.js";
import { retirePreviousHolder } from "./_forward.js";
import { ensureFolders, errorText, unlinkIfPresent, writeWhole } from "./_fs.js";
import { MAX_CLOCK_SKEW_MS, memberState } from "./_liveness.js";
import { withMemberLock } from "./_lock.js";
import { loadRecord, recordTime } from "./_members.js";
import type { Liveness, Seat, SessionRecord, Watching } from "./_record.js";
import { iso, type Team } from "./_team.js";
import { labelKey, validateId, validateLabel } from "./_validate.js";

export type JoinInput = {
  id: string;
  label: string;
  agent: string;
  pid: number;
  pidStart?: string | undefined;
  cwd?: string | undefined;
  seat?: Seat | undefined;
  watching: Watching;
  liveness: Liveness;
};

export type JoinRefusalReason =
  | "bad-label"
  | "bad-id"
  | "bad-input"
  | "label-held"
  | "label-held-gone"
  | "busy"
  | "unwritable";

export type JoinRefusal = {
  ok: false;
  reason: JoinRefusalReason;
  error: string;
  /** What to do, where the roster knows (a label or id that is not one); apart from `error`. */
  fix?: string | undefined;
  holderLabel?: string | undefined;
  holderId?: string | undefined;
};

/** A label taken over: from whom, why they could be replaced, and how much unread mail came along. */
export type TookOver = {
  from: string;
  reason: "dead" | "expired" | "orphan" | "unreadable";
  forwarded: number;
};

export type JoinResult =
  | {
      ok: true;
      label: string;
      watching: Watching;
      renamedFrom?: string | undefined;
      /** The session id the label was taken over from (also in `took`). */
      reclaimedFrom?: string | undefined;
      took?: TookOver | undefined;
    }
  | JoinRefusal;

type LabelHeld = Omit<JoinRefusal, "ok">;

const recordText = (record: SessionRecord) => `${JSON.stringify(record)}\n`;

/** May the holder of a label claim be replaced? Only one proven dead, expired, or never written. */
function judgeLabel(team: Team) {
  return async (claim: Claim, now: number): Promise<ClaimVerdict<LabelHeld>> => {
    const holder = await loadRecord(team, claim.holder);
    if (!holder || labelKey(holder.label) !== labelKey(claim.key)) {
      const age = now - Date.parse(claim.at);
      // A claim dated in the future beyond the skew bound is not believed: no grace for it.
      if (age < CLAIM_GRACE_MS && -age <= MAX_CLOCK_SKEW_MS) {
        const error = `label "${claim.key}" is being claimed by another session right now`;
        return {
          free: false,
          held: { reason: "label-held", error, holderLabel: claim.key, holderId: claim.holder },
        };
      }
      return { free: true, reason: "orphan" };
    }
    const fileTime = () => recordTime(team, holder.id, now);
    const state = await memberState(holder, now, team.policy, team.processes, fileTime);
    const held = { holderLabel: holder.label, holderId: claim.holder };
    if (state.state === "live") {
      const error = `label "${holder.label}" is held by a live ${holder.agent} session (pid ${holder.pid})`;
      return { free: false, held: { reason: "label-held", error, ...held } };
    }
    if (state.state === "gone" && state.reason !== "process-dead") {
      const seconds = Math.round((now - Date.parse(holder.heartbeatAt)) / 1000);
      const error = `label "${holder.label}" is held by a ${holder.agent} session that stopped answering (last heartbeat ${seconds}s ago)`;
      return { free: false, held: { reason: "label-held-gone", error, ...held } };
    }
    return { free: true, reason: state.state === "expired" ? "expired" : "dead" };
  };
}

function checkInput(input: JoinInput): JoinRefusal | undefined {
  const id = validateId(input.id);
  if (!id.ok) return { ok: false, reason: "bad-id", error: id.error, fix: id.fix };
  const label = validateLabel(input.label);
  if (!label.ok) return { ok: false, reason: "bad-label", error: label.error, fix: label.fix };
  if (
    !Number.isInteger(input.pid) ||
    input.pid <= 0 ||
    typeof input.agent !== "string" ||
    input.agent === ""
  )
    return {
      ok: false,
      reason: "bad-input",
      error: "a join needs a positive integer pid and an agent name",
    };
  return undefined;
}

/** Join under a label, or rename, or refresh: the claim is exclusive and case-insensitive. */
export async function join(team: Team, input: JoinInput): Promise<JoinResult> {
  const refused = checkInput(input);
  if (refused) return refused;
  // The member's lock: prune re-checks under it before it forgets a member or its mailbox.
  const joined = await withMemberLock(team, input.id, () => joinLocked(team, input)).catch(
    (error: unknown): JoinResult => ({
      ok: false,
      reason: "unwritable",
      error: `cannot write the team folder ${team.paths.dir}: ${errorText(error)}`,
    }),
  );
  return (
    joined ?? {
      ok: false,
      reason: "busy",
      error: `session ${input.id} is being changed by another process (a prune?)`,
    }
  );
}

async function joinLocked(team: Team, input: JoinInput): Promise<JoinResult> {
  try {
    const existing = await loadRecord(team, input.id);
    const claimed = await takeClaim(team, {
      space: "labels",
      key: input.label,
      holder: input.id,
      judge: judgeLabel(team),
    });
    if (!claimed.ok) {
      // We cleared a dead holder's claim and lost the label to a fresh creator meanwhile: its mail
      // still goes to whoever holds the label now.
      const gone = claimed.reason !== "bad-key" ? claimed.cleared?.from : undefined;
      const winner = claimed.reason !== "bad-key" ? claimed.current?.holder : undefined;
      if (gone && winner && gone.holder !== winner && gone.holder !== input.id)
        await retirePreviousHolder(team, gone.holder, input.label, winner);
      if (claimed.reason === "held") return { ok: false, ...claimed.held };
      if (claimed.reason === "bad-key")
        return { ok: false, reason: "bad-label", error: claimed.error, fix: claimed.fix };
      return {
        ok: false,
        reason: "label-held",
        error: `label "${input.label}" is being taken over by another session right now`,
        holderLabel: claimed.current?.key,
        holderId: claimed.current?.holder,
      };
    }
    const now = team.clock();
    await ensureFolders(team.fs, [
      team.paths.mailbox(input.id),
      team.paths.mailTmp(input.id),
      team.paths.inboxFolder(input.id),
      team.paths.readFolder(input.id),
    ]);
    const record: SessionRecord = {
      v: 1,
      id: input.id,
      label: input.label,
      agent: input.agent,
      cwd: input.cwd,
      pid: input.pid,
      pidStart: input.pidStart,
      seat: input.seat,
      watching: { armed: input.watching.armed, wake: input.watching.wake },
      liveness: input.liveness,
      place: team.processes.place?.(),
      joinedAt: existing && existing.pid === input.pid ? existing.joinedAt : iso(now),
      heartbeatAt: iso(now),
    };
    await writeWhole(team.fs, team.paths.recordFile(input.id), recordText(record), now);
    // Still ours now that the record is written? A joiner that stalled past the claim's grace
    // between its claim and its record may have been taken over as an orphan meanwhile.
    const after = await readClaim(team, "labels", input.label);
    if (after === "unreadable" || after?.token !== claimed.claim.token) {
      if (existing)
        await writeWhole(team.fs, team.paths.recordFile(input.id), recordText(existing), now);
      else await unlinkIfPresent(team.fs, team.paths.recordFile(input.id));
      return {
        ok: false,
        reason: "label-held",
        error: `label "${input.label}" was taken over by another session while this one joined`,
        holderLabel: after === "unreadable" ? undefined : after?.key,
        holderId: after === "unreadable" ? undefined : after?.holder,
      };
    }
    let renamedFrom: string | undefined;
    if (existing && labelKey(existing.label) !== labelKey(input.label)) {
      await releaseClaim(team, "labels", existing.label, input.id);
      renamedFrom = existing.label;
    }
    // Mail to the label waited for the dead holder: it comes to the new one, marked so. One
    // cleared on an earlier round (this join then won the key on a later one) is retired too.
    let took: TookOver | undefined;
    for (const gone of [claimed.took, claimed.cleared]) {
      const from = gone?.from?.holder;
      if (!gone || !from || from === input.id || from === took?.from) continue;
      const forwarded = await retirePreviousHolder(team, from, input.label, input.id);
      took ??= { from, reason: gone.reason, forwarded };
    }
    return {
      ok: true,
      label: input.label,
      watching: record.watching,
      renamedFrom,
      reclaimedFrom: took?.from,
      took,
    };
  } catch (error) {
    return {
      ok: false,
      reason: "unwritable",
      error: `cannot write the team folder ${team.paths.dir}: ${errorText(error)}`,
    };
  }
}
