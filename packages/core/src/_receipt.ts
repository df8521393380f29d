/**
 * The phases, in rank order. `written`: in the recipient's mailbox. `woke`: a turn was started for
 * it (Codex's queued line, a Claude rewake, pi's triggered turn, a typed nudge). `delivered`: shown
 * to the agent (pi delivered it, a hook injected it, an inbox printed it). `acknowledged`: marked
 * read. Woke ranks below delivered: a turn started for mail does not mean the body was shown.
 */
export const DELIVERY_PHASES = ["written", "woke", "delivered", "acknowledged"] as const;
export type DeliveryPhase = (typeof DELIVERY_PHASES)[number];

/** When a phase was reached, and by which door (`pi`, `inbox`, `hook`, `codex-queue`, …). */
export type PhaseMark = { at: string; how?: string | undefined };
export type PhaseMarks = Partial<Record<DeliveryPhase, PhaseMark>>;

/** What a sender may wait for: shown to the agent, or marked read. */
export type WaitGoal = "delivered" | "acknowledged";

/** The furthest phase with a mark, or undefined when there is none. */
export function furthestPhase(marks: PhaseMarks): DeliveryPhase | undefined {
  for (let rank = DELIVERY_PHASES.length - 1; rank >= 0; rank -= 1) {
    const phase = DELIVERY_PHASES[rank]!;
    if (marks[phase]) return phase;
  }
  return undefined;
}

/** Whether the marks meet the goal. Acknowledged counts as delivered: the reader marked it read. */
export function goalMet(marks: PhaseMarks, goal: WaitGoal): boolean {
  if (marks.acknowledged) return true;
  return goal === "delivered" && marks.delivered !== undefined;
}

export type RecipientWait = {
  id: string;
  label: string;
  reached: DeliveryPhase | "none";
  met: boolean;
  /** The door that reached the furthest phase, where one was named. */
  how?: string;
  /** The member the message was forwarded to when its label was taken over (the phases are its). */
  forwardedTo?: string;
  /** Why the last wake for it failed, while it has not woken since (the sender is told). */
  wakeFailed?: string;
  /** Its wake is held by the rate, while it has not woken since: why, and when it wakes again. */
  wakeHeld?: { reason: "rate-limited"; words: string; retryAfter: string };
};

/** A wake that was tried and failed: when, by which door, and the engine's own words. */
export type WakeFailure = { at: string; how?: string | undefined; error: string };

/**
 * A wake held back by the rate (core's heldWake): when, by which door, why in words, and when a
 * slot frees (ISO). The mail is in the mailbox; it wakes at the first sweep after `retryAfter`.
 */
export type WakeHeld = {
  at: string;
  how?: string | undefined;
  reason: "rate-limited";
  words: string;
  retryAfter: string;
};

/** A recipient's marks in a receipt; `forwardedTo` when its label's new holder got the message. */
export type ReceiptEntry = {
  id: string;
  phases: PhaseMarks;
  forwardedTo?: string | undefined;
  wakeFailed?: WakeFailure | undefined;
  wakeHeld?: WakeHeld | undefined;
};

/** Forwards followed at most this many times (a label taken over, then over again, …). */
const MAX_FORWARDS = 8;
export type WaitReport = { goal: WaitGoal; done: boolean; recipients: RecipientWait[] };

/**
 * Where each recipient of a send stands against the goal; done when every one met it. Marks for
 * someone the send did not reach are ignored (a receipt folder is written by many processes).
 */
export function waitReport(
  recipients: readonly { id: string; label: string }[],
  receipt: readonly ReceiptEntry[],
  goal: WaitGoal,
): WaitReport {
  const rows = recipients.map(({ id, label }): RecipientWait => {
    // Mail a recipient left unread went on to its label's new holder: that holder's phases count.
    let entry = receipt.find((each) => each.id === id);
    let forwardedTo: string | undefined;
    for (let hops = 0; entry?.forwardedTo !== undefined && hops < MAX_FORWARDS; hops += 1) {
      forwardedTo = entry.forwardedTo;
      entry = receipt.find((each) => each.id === forwardedTo);
    }
    const phases = entry?.phases ?? {};
    const reached = furthestPhase(phases);
    const how = reached ? phases[reached]?.how : undefined;
    // A failure that a later wake (or anything further) made good is not news to the sender.
    const waiting = reached === undefined || reached === "written";
    // Of a failed and a held wake, only the later one is still true.
    const [failedMark, heldMark] = [entry?.wakeFailed, entry?.wakeHeld];
    const later =
      failedMark && heldMark ? Date.parse(failedMark.at) >= Date.parse(heldMark.at) : undefined;
    const failed = waiting && later !== false ? failedMark : undefined;
    const held = waiting && later !== true ? heldMark : undefined;
    return {
      id,
      label,
      reached: reached ?? "none",
      met: goalMet(phases, goal),
      ...(how ? { how } : {}),
      ...(forwardedTo ? { forwardedTo } : {}),
      ...(failed ? { wakeFailed: failed.error } : {}),
      ...(held
        ? { wakeHeld: { reason: held.reason, words: held.words, retryAfter: held.retryAfter } }
        : {}),
    };
  });
  return { goal, done: rows.every((row) => row.met), recipients: rows };
}

/** `--wait` (delivered), `--wait=delivered`, `--wait=ack` or `--wait=acknowledged`. */
export function parseWaitGoal(
  word: string | true,
): { ok: true; goal: WaitGoal } | { ok: false; error: string } {
  const text = word === true ? "" : word.toLowerCase();
  if (text === "" || text === "delivered") return { ok: true, goal: "delivered" };
  if (text === "ack" || text === "acknowledged") return { ok: true, goal: "acknowledged" };
  return { ok: false, error: `--wait takes "delivered" or "ack", not "${word}"` };
}

/** What each phase means to a sender, for every composer's output. */
export const PHASE_WORDS: Readonly<Record<DeliveryPhase | "none", string>> = {
  none: "not written",
  written: "written, not seen yet",
  woke: "woken, not shown the message yet",
  delivered: "shown to the agent",
  acknowledged: "read",
};
