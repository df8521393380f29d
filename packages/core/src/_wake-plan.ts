// One round of waking a member, decided: for each unread message, wake the member for it now, hand
// it over for the next turn, hold it until the wake rate frees, or skip it. Pure: the door keeps
// the book (a plain value) from round to round, the wiring's wakeRound runs the effects (claims,
// slots, receipts) and the door's own (pi's sendMessage, `codex queue`, the nudger's keys, the
// Claude hook's answer).
import type { Watching } from "./_types.js";
import {
  DEFAULT_WAKE_POLICY,
  decideDelivery,
  type MailFacts,
  type RecentWake,
  recordWake,
  type WakePolicy,
} from "./_wake.js";
import { heldWake, type WakeHold } from "./_wake-rate.js";

/**
 * Who counts the wake rate. `own`: the door is the only process waking its member (pi's extension,
 * the nudger), and counts one wake per message woken in its book. `shared`: every process that can
 * wake the member counts together in the roster's wake slots, one per batch (Codex's queue); the
 * book only keeps the last hold, so no slot is asked for before it ends. `none`: the door starts no
 * turn of its own accord (a Claude Code hook answers at a turn's edge).
 */
export type WakeCount = "own" | "shared" | "none";

/** A door's wake policy: core's, with who counts the rate and whether it hands mail over quietly. */
export type WakePlanPolicy = WakePolicy & {
  count: WakeCount;
  /**
   * Mail that may not wake is handed over for the next turn (pi, a Claude hook); else it is left in
   * the mailbox (Codex's queue and the nudger only ever wake).
   */
  nextTurn: boolean;
};

/** What a door remembers between rounds. A plain value: the door keeps it, planWake returns the next. */
export type WakeBook = {
  /** The door's own wakes inside the window (count `own`). */
  wakes: readonly RecentWake[];
  /** Held mail: each message id, and the retryAfter its `wake-held` mark names (marked once per hold). */
  held: Readonly<Record<string, number>>;
  /** The member's last hold from the shared slots (count `shared`): no slot frees before it ends. */
  hold?: WakeHold | undefined;
  /** Handed over already (shown, claimed): never planned again while it is unread. */
  done: readonly string[];
};

export const EMPTY_WAKE_BOOK: WakeBook = { wakes: [], held: {}, done: [] };

export type WakeStep =
  | { id: string; step: "wake"; mode: "steer" | "follow-up" }
  | {
      id: string;
      step: "next-turn";
      reason: "no-wake" | "hop-limit" | "loop-brake" | "already-woken";
    }
  /** Held by the rate until `until`; `mark`: the receipt does not say this hold yet. */
  | { id: string; step: "hold"; until: number; mark: boolean; hold: WakeHold }
  | {
      id: string;
      step: "skip";
      reason: "not-listening" | "done" | "no-wake" | "hop-limit" | "loop-brake" | "already-woken";
    };

export type WakePlan = { steps: WakeStep[]; book: WakeBook };

/** The hold the door's own count amounts to now. */
const ownHold = (wakes: readonly RecentWake[], now: number, policy: WakePolicy) =>
  heldWake(
    wakes.filter((wake) => now - wake.at < policy.windowMs).map((wake) => wake.at),
    now,
    policy,
  );

/**
 * Plan one round for one member: a step per unread message (in the mailbox's order). The book that
 * comes back keeps only what still matters: held marks and handed-over ids of mail still unread.
 * The wakes planned are not in it yet: the wiring books them once the door woke (`bookWoke`).
 */
export function planWake(
  messages: readonly MailFacts[],
  watching: Watching,
  book: WakeBook,
  now: number,
  policy: WakePlanPolicy,
): WakePlan {
  const done = new Set(book.done);
  let wakes = policy.count === "own" ? [...book.wakes] : [];
  const shared = policy.count === "shared" && book.hold && now < book.hold.retryAfter;
  const steps: WakeStep[] = [];
  const held: Record<string, number> = {};
  for (const message of messages) {
    if (done.has(message.id)) {
      steps.push({ id: message.id, step: "skip", reason: "done" });
      continue;
    }
    const delivery = decideDelivery(message, watching, wakes, now, policy);
    if (delivery.action === "hold") {
      steps.push({ id: message.id, step: "skip", reason: delivery.reason });
      continue;
    }
    const hold =
      delivery.wake && shared
        ? book.hold
        : !delivery.wake && delivery.reason === "rate-limited"
          ? ownHold(wakes, now, policy)
          : undefined;
    if (hold) {
      held[message.id] = hold.retryAfter;
      const mark = book.held[message.id] !== hold.retryAfter;
      steps.push({ id: message.id, step: "hold", until: hold.retryAfter, mark, hold });
      continue;
    }
    if (delivery.wake) {
      steps.push({ id: message.id, step: "wake", mode: delivery.mode });
      if (policy.count === "own")
        wakes = recordWake(wakes, { at: now, messageId: message.id }, policy);
      continue;
    }
    const reason = delivery.reason as Exclude<typeof delivery.reason, "rate-limited">;
    steps.push({ id: message.id, step: policy.nextTurn ? "next-turn" : "skip", reason });
  }
  const unread = new Set(messages.map((message) => message.id));
  return {
    steps,
    book: {
      wakes: book.wakes,
      held,
      ...(book.hold ? { hold: book.hold } : {}),
      done: book.done.filter((id) => unread.has(id)),
    },
  };
}

/** The book once these messages woke the member at `now` (one wake each, as the own count counts). */
export function bookWoke(
  book: WakeBook,
  ids: readonly string[],
  now: number,
  policy: WakePolicy = DEFAULT_WAKE_POLICY,
): WakeBook {
  let wakes = book.wakes;
  for (const messageId of ids) wakes = recordWake(wakes, { at: now, messageId }, policy);
  const held = Object.fromEntries(Object.entries(book.held).filter(([id]) => !ids.includes(id)));
  const { hold: _over, ...rest } = book;
  return { ...rest, wakes, held };
}

/** The book once the shared slots refused a wake: every slot taken at `takenAt`. */
export const bookSlotsTaken = (
  book: WakeBook,
  takenAt: readonly number[],
  now: number,
  policy: WakePolicy = DEFAULT_WAKE_POLICY,
): WakeBook => ({ ...book, hold: heldWake(takenAt, now, policy) });

/** The book with these ids handed over (never planned again while unread). */
export const bookDone = (book: WakeBook, ids: readonly string[]): WakeBook => ({
  ...book,
  done: [...new Set([...book.done, ...ids])],
});
