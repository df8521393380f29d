// Joining: claim the label (the general claim, judged by the holder's record), write the record
// and the mailbox, release a previous label on a rename. A label held by a proven-dead or expired
// holder is taken over; one held by a live or merely silent holder is refused with the reason.
import {
  CLAIM_GRACE_MS,
  type ClaimVerdict,
  type Cleared,
  type Takeover,
  takeClaim,
} from "./_claim.js";
import { type Claim, readClaim } from "./_claim-read.js";
import { releaseClaim } from "./_claim-release.js";
import { retirePreviousHolder } from "./_forward.js";
import { MAX_CLOCK_SKEW_MS } from "./_liveness.js";
import { withMemberLock } from "./_lock.js";
import { judgeHolder, loadRecord } from "./_members.js";
import type { Liveness, Seat, SessionRecord, Watching } from "./_record.js";
import { cannot, heldLabel, iso, type Team } from "./_team.js";
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
  /** Where the member's engine keeps its sessions (see SessionRecord.engineHome). */
  engineHome?: string | undefined;
  /**
   * The session this one replaced in the same process (a Codex TUI's /new; core's `leftBehind`):
   * its label may be taken over, with its unread mail, once its record is proven to be of this
   * very process and engine.
   */
  leaves?: string | undefined;
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
  reason: "dead" | "expired" | "orphan" | "unreadable" | "left";
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

/**
 * Whether `holder` is a session the joiner's own process ran before (one process runs one session
 * of an engine at a time: a Codex TUI's /new, a pi session switched): proven left, not live.
 */
const leftBy = (holder: SessionRecord, input: JoinInput, place: string | undefined) =>
  input.leaves === holder.id &&
  holder.id !== input.id &&
  holder.agent === input.agent &&
  holder.pid === input.pid &&
  input.pidStart !== undefined &&
  holder.pidStart === input.pidStart &&
  holder.place === place;

/**
 * May the holder of a label claim be replaced? Only one proven dead, expired, never written, or
 * left by the joiner's own process. A holder whose record is there but cannot be read is unknown:
 * it keeps the label until its record is older than the TTL.
 */
function judgeLabel(team: Team, input: JoinInput) {
  return async (claim: Claim, now: number): Promise<ClaimVerdict<LabelHeld>> => {
    const judged = await judgeHolder(team, claim.holder, now);
    if (judged.found === "unreadable") {
      if (judged.state === "expired") return { free: true, reason: "expired" };
      const error = `label "${claim.key}" is held by session ${claim.holder}, whose record cannot be read (written by a newer muster, or damaged); it is kept until that record is older than the TTL`;
      return {
        free: false,
        held: { reason: "label-held", error, holderLabel: claim.key, holderId: claim.holder },
      };
    }
    if (judged.found !== "member" || labelKey(judged.record.label) !== labelKey(claim.key)) {
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
    const { record: holder, state } = judged;
    if (leftBy(holder, input, team.processes.place?.())) return { free: true, reason: "left" };
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
      error: cannot(team, "write", error),
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
    // Kept for a member that is down: only that member (its own id) comes back under it.
    const kept = await heldLabel(team, input.label);
    if (kept && kept.id !== input.id)
      return {
        ok: false,
        reason: "label-held",
        error: `label "${kept.label}" is kept for a declared member that is down (since ${kept.since})`,
        fix: "pick another label (this one comes back with its member)",
        holderLabel: kept.label,
        holderId: kept.id,
      };
    const existing = await loadRecord(team, input.id);
    const claimed = await claimLabel(team, input);
    if (!claimed.ok) return claimed;
    const record = await writeRecord(team, input, existing);
    // Still ours now that the record is written? A joiner that stalled past the claim's grace
    // between its claim and its record may have been taken over as an orphan meanwhile.
    const after = await readClaim(team, "labels", input.label);
    if (after === "unreadable" || after?.token !== claimed.claim.token) {
      if (existing) await team.store.put("sessions", input.id, recordText(existing));
      else await team.store.remove("sessions", input.id);
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
    const took = await retireHolders(team, input, claimed);
    const watching = record.watching;
    return { ok: true, label: input.label, watching, renamedFrom, reclaimedFrom: took?.from, took };
  } catch (error) {
    return { ok: false, reason: "unwritable", error: cannot(team, "write", error) };
  }
}

/** The label's claim taken for the joiner, or the refusal that says who holds it. */
async function claimLabel(team: Team, input: JoinInput) {
  const claimed = await takeClaim(team, {
    space: "labels",
    key: input.label,
    holder: input.id,
    judge: judgeLabel(team, input),
  });
  if (claimed.ok) return claimed;
  // A dead holder's claim we cleared and lost to a fresh creator in that moment is the
  // winner's takeover (its create was told): it retires the holder once its mailbox is there.
  if (claimed.reason === "held") return { ok: false, ...claimed.held } satisfies JoinRefusal;
  if (claimed.reason === "bad-key")
    return {
      ok: false,
      reason: "bad-label",
      error: claimed.error,
      fix: claimed.fix,
    } satisfies JoinRefusal;
  return {
    ok: false,
    reason: "label-held",
    error: `label "${input.label}" is being taken over by another session right now`,
    holderLabel: claimed.current?.key,
    holderId: claimed.current?.holder,
  } satisfies JoinRefusal;
}

/** The joiner's mailbox made and its record written (its first join time kept). */
async function writeRecord(
  team: Team,
  input: JoinInput,
  existing: SessionRecord | undefined,
): Promise<SessionRecord> {
  const now = team.clock();
  await team.store.mail.ensure(input.id);
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
    engineHome: input.engineHome,
    joinedAt: existing && existing.pid === input.pid ? existing.joinedAt : iso(now),
    heartbeatAt: iso(now),
  };
  await team.store.put("sessions", input.id, recordText(record));
  return record;
}

/**
 * Mail to the label waited for the dead holder: it comes to the new one, marked so. One cleared
 * on an earlier round (this join then won the key on a later one) is retired too.
 */
async function retireHolders(
  team: Team,
  input: JoinInput,
  claimed: { took?: Takeover | undefined } & Cleared,
): Promise<TookOver | undefined> {
  let took: TookOver | undefined;
  for (const gone of [claimed.took, claimed.cleared]) {
    const from = gone?.from?.holder;
    if (!gone || !from || from === input.id || from === took?.from) continue;
    const forwarded = await retirePreviousHolder(team, from, input.label, input.id);
    took ??= { from, reason: gone.reason, forwarded };
  }
  return took;
}
