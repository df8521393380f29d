// Receipts: the marks of each phase a message reached at each recipient, first mark standing, kept
// by the store (the folder store: one small file per mark). Which phase ranks above which, and what
// a sender's goal needs, are core's rules; this file checks what a mark may say and reads them back.
import { errorText } from "./_error.js";
import { isTime } from "./_record.js";
import type { StoredMark } from "./_store.js";
import type { Team } from "./_team.js";
import { iso } from "./_team.js";
import { validateId } from "./_validate.js";

/** The phases a receipt records (core ranks them). */
export const RECEIPT_PHASES = ["written", "woke", "delivered", "acknowledged"] as const;
export type ReceiptPhase = (typeof RECEIPT_PHASES)[number];

/** A receipt is removed by prune this long after its last mark: one day. */
export const RECEIPT_KEEP_MS = 24 * 60 * 60_000;

export type ReceiptMark = { at: string; how?: string | undefined };
/** A wake that was tried and failed: when, by which door, and the engine's words (one line). */
export type WakeFailure = { at: string; how?: string | undefined; error: string };
/**
 * A wake held back by the wake rate: when, by which door, why (`words`, core's), and when the rate
 * lets it wake (`retryAfter`, ISO). The latest hold stands; a later phase makes it old news.
 */
export type WakeHeld = {
  at: string;
  how?: string | undefined;
  reason: "rate-limited";
  words: string;
  retryAfter: string;
};
export type RecipientReceipt = {
  id: string;
  phases: Partial<Record<ReceiptPhase, ReceiptMark>>;
  /** The last wake that failed for this recipient, if any (a later wake does not remove it). */
  wakeFailed?: WakeFailure | undefined;
  /** The last wake held back by the rate for this recipient, if any. */
  wakeHeld?: WakeHeld | undefined;
  /** This recipient's label was taken over and the message moved on, unread, to this member. */
  forwardedTo?: string | undefined;
  /** The recipient this member got the message from when it took over its label. */
  forwardedFrom?: string | undefined;
};

export type MessageReceipt =
  | { ok: true; id: string; recipients: RecipientReceipt[]; warnings: string[] }
  | { ok: false; reason: "bad-id" | "unreadable"; error: string; fix?: string | undefined };

export type MarkResult =
  | { ok: true; marked: string[] }
  | { ok: false; reason: "bad-input" | "unwritable"; error: string };

/** The door that reached a phase: a short lower-case word (`pi`, `inbox`, `codex-queue`). */
export const HOW = /^[a-z][a-z0-9-]{0,31}$/;

/** A failed wake's words are kept to one line this long. */
const FAILURE_CHARS = 300;

/** Whether a mark read back from the store says only what a mark may say. */
export function checkMark(mark: StoredMark): boolean {
  const held = mark.phase === "wake-held";
  const failed = mark.phase === "wake-failed" || held;
  return (
    validateId(mark.member).ok &&
    ((RECEIPT_PHASES as readonly string[]).includes(mark.phase) || failed) &&
    isTime(mark.at) &&
    (mark.how === undefined ? !failed : HOW.test(mark.how)) &&
    (mark.from === undefined || validateId(mark.from).ok) &&
    (failed ? typeof mark.error === "string" : mark.error === undefined) &&
    (held ? isTime(mark.until) : mark.until === undefined)
  );
}

/**
 * A wake for member `id` was held back by the rate for these messages (`how`: the door; `hold`:
 * core's heldWake). The latest hold stands; `marked` lists the messages.
 */
export async function markWakeHeld(
  team: Team,
  id: string,
  messageIds: readonly string[],
  how: string,
  hold: { words: string; retryAfter: number },
): Promise<MarkResult> {
  const member = validateId(id);
  if (!member.ok) return { ok: false, reason: "bad-input", error: member.error };
  if (!HOW.test(how))
    return { ok: false, reason: "bad-input", error: `"${how}" is not a door name` };
  if (!Number.isFinite(hold.retryAfter))
    return { ok: false, reason: "bad-input", error: "a held wake needs the time it wakes again" };
  const words = hold.words.replace(/\s+/g, " ").trim().slice(0, FAILURE_CHARS);
  const mark = {
    phase: "wake-held",
    at: iso(team.clock()),
    how,
    error: words,
    until: iso(hold.retryAfter),
  };
  return markLatest(team, id, messageIds, mark);
}

/**
 * A wake for member `id` was tried for these messages and failed (`how`: the door; `error`: what
 * the engine said). The latest failure stands; `marked` lists the messages.
 */
export async function markWakeFailed(
  team: Team,
  id: string,
  messageIds: readonly string[],
  how: string,
  error: string,
): Promise<MarkResult> {
  const member = validateId(id);
  if (!member.ok) return { ok: false, reason: "bad-input", error: member.error };
  if (!HOW.test(how))
    return { ok: false, reason: "bad-input", error: `"${how}" is not a door name` };
  const words = error.replace(/\s+/g, " ").trim().slice(0, FAILURE_CHARS);
  return markLatest(team, id, messageIds, {
    phase: "wake-failed",
    at: iso(team.clock()),
    how,
    error: words,
  });
}

/** Writes one latest-wins mark of member `id` on each valid message id; `marked` lists them. */
async function markLatest(
  team: Team,
  id: string,
  messageIds: readonly string[],
  fields: Omit<StoredMark, "member">,
): Promise<MarkResult> {
  const marked: string[] = [];
  try {
    for (const messageId of messageIds) {
      if (!validateId(messageId, "message id").ok) continue;
      await team.store.receipts.mark(messageId, { member: id, ...fields }, { latest: true });
      marked.push(messageId);
    }
  } catch (failure) {
    return {
      ok: false,
      reason: "unwritable",
      error: `cannot write a receipt for ${id}: ${errorText(failure)}`,
    };
  }
  return { ok: true, marked };
}

/**
 * Mark `phase` for member `id` on each message. Message ids that are not ids are skipped (never a
 * path); a phase already marked keeps its first mark. `marked` lists the messages newly marked.
 */
export async function markPhase(
  team: Team,
  phase: ReceiptPhase,
  id: string,
  messageIds: readonly string[],
  how?: string,
  /** On a `written` mark of forwarded mail: the member it was forwarded from. */
  from?: string,
): Promise<MarkResult> {
  const member = validateId(id);
  if (!member.ok) return { ok: false, reason: "bad-input", error: member.error };
  if (how !== undefined && !HOW.test(how))
    return { ok: false, reason: "bad-input", error: `"${how}" is not a door name` };
  const marked: string[] = [];
  const at = iso(team.clock());
  try {
    for (const messageId of messageIds) {
      if (!validateId(messageId, "message id").ok) continue;
      if (await team.store.receipts.mark(messageId, { member: id, phase, at, how, from }))
        marked.push(messageId);
    }
  } catch (error) {
    return {
      ok: false,
      reason: "unwritable",
      error: `cannot write a receipt for ${id}: ${errorText(error)}`,
    };
  }
  return { ok: true, marked };
}

/** Every recipient's marks on a message, written order first; what is not a mark warns. */
export async function readReceipt(team: Team, messageId: string): Promise<MessageReceipt> {
  const valid = validateId(messageId, "message id");
  if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error, fix: valid.fix };
  let read: Awaited<ReturnType<Team["store"]["receipts"]["read"]>>;
  try {
    read = await team.store.receipts.read(messageId);
  } catch (error) {
    return {
      ok: false,
      reason: "unreadable",
      error: `cannot read the receipt of ${messageId}: ${errorText(error)}`,
    };
  }
  const where = (name: string) => `receipts/${messageId}/${name}`;
  const warnings = read.strays.map((stray) => `${where(stray.name)} ${stray.error}; skipped`);
  const marks: StoredMark[] = [];
  for (const mark of read.marks) {
    if (checkMark(mark)) marks.push(mark);
    else
      warnings.push(
        `${where(mark.name ?? `${mark.member}.${mark.phase}`)} is not a receipt; skipped`,
      );
  }
  return { ok: true, id: messageId, recipients: recipientsOf(marks), warnings };
}

/**
 * The recipients a message's checked marks say: the first mark of each phase stands (a store
 * hands folded marks first), the latest failed wake; each forward linked both ways.
 */
export function recipientsOf(marks: readonly StoredMark[]): RecipientReceipt[] {
  const byMember = new Map<string, RecipientReceipt>();
  for (const mark of marks) {
    const entry = byMember.get(mark.member) ?? { id: mark.member, phases: {} };
    byMember.set(mark.member, entry);
    if (mark.phase === "wake-failed") {
      if (entry.wakeFailed !== undefined && entry.wakeFailed.at > mark.at) continue;
      const error = (mark.error ?? "").slice(0, FAILURE_CHARS);
      entry.wakeFailed = { at: mark.at, how: mark.how, error };
      continue;
    }
    if (mark.phase === "wake-held") {
      if (entry.wakeHeld !== undefined && entry.wakeHeld.at > mark.at) continue;
      const words = (mark.error ?? "").slice(0, FAILURE_CHARS);
      const retryAfter = mark.until ?? mark.at;
      entry.wakeHeld = { at: mark.at, how: mark.how, reason: "rate-limited", words, retryAfter };
      continue;
    }
    const phase = mark.phase as ReceiptPhase;
    if (entry.phases[phase] !== undefined) continue;
    entry.phases[phase] = { at: mark.at, ...(mark.how ? { how: mark.how } : {}) };
    if (mark.from !== undefined && mark.from !== mark.member) entry.forwardedFrom = mark.from;
  }
  // Each forward links both ways: the recipient the send reached names where its mail went.
  for (const entry of [...byMember.values()]) {
    if (entry.forwardedFrom === undefined) continue;
    const previous = byMember.get(entry.forwardedFrom) ?? { id: entry.forwardedFrom, phases: {} };
    previous.forwardedTo = entry.id;
    byMember.set(previous.id, previous);
  }
  return [...byMember.values()].sort(
    (left, right) =>
      (left.phases.written?.at ?? "~").localeCompare(right.phases.written?.at ?? "~") ||
      left.id.localeCompare(right.id),
  );
}
