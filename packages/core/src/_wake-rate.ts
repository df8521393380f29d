// The wake rate, counted per member across every process that can wake it: what a rate slot is,
// when it frees, and what a held wake tells its sender. Pure: the roster keeps the slots (its
// exclusive claim), the composers only call. decideDelivery's own count (`recentWakes`) stays for
// a door that is the only process waking its member (pi's extension, the nudger).
import { BRAKE_WORDS } from "./_conversation.js";
import { DEFAULT_WAKE_POLICY, type WakePolicy } from "./_wake.js";

/**
 * Why slots, not a count. A count read from the roster (the wake claims' times) is read, then acted
 * on: two processes that both read 5 both wake, and the member gets 7. A slot is an exclusive
 * claim, `maxWakes` of them per member, each taken by one wake and free again only once it is older
 * than the window: two takes of one slot are a window apart, so no window holds more than `maxWakes`
 * wakes, however many processes race. Every store keeps exclusive claims (create, compare-and-swap).
 * One wake is one turn started (a batch of mail woken by one line takes one slot); a wake the engine
 * refused keeps its slot, so a failing door is not hammered.
 */
export type WakeRate = {
  /** How many slots a member has: the policy's `maxWakes`. */
  slots: number;
  /** May a slot taken at `takenAt` be taken again at `now`? */
  free: (takenAt: number, now: number) => boolean;
};

/** A member's slots are kept to this many, whatever a policy says (each take reads them in turn). */
const MAX_SLOTS = 64;

/**
 * The shared rate a policy amounts to. A slot dated further ahead than one window was not taken by
 * a wake that happened (a clock that jumped, a planted file): it is free, or one bad date would
 * hold a member's wakes for as long as it says.
 */
export const wakeRate = (policy: WakePolicy = DEFAULT_WAKE_POLICY): WakeRate => ({
  slots: Math.max(0, Math.min(Math.floor(policy.maxWakes), MAX_SLOTS)),
  free: (takenAt, now) =>
    !Number.isFinite(takenAt) ||
    now - takenAt >= policy.windowMs ||
    takenAt - now > policy.windowMs,
});

/** A wake held back by the rate: the mail is in the mailbox, and wakes once a slot frees. */
export type WakeHold = {
  reason: "rate-limited";
  /** When the first slot frees (ms): the mail wakes at the first sweep after it. */
  retryAfter: number;
  /** Why, in the sender's words: `6 wakes in the last minute`. */
  words: string;
};

const windowWords = (windowMs: number) =>
  windowMs === 60_000 ? "minute" : `${Math.round(windowMs / 1000)} s`;

/** The hold for a member whose slots were taken at `takenAt` (every slot in the window). */
export function heldWake(
  takenAt: readonly number[],
  now: number,
  policy: WakePolicy = DEFAULT_WAKE_POLICY,
): WakeHold {
  // Never later than one window from now, whatever dates the slots carry.
  const first = Math.min(now, ...takenAt.filter(Number.isFinite));
  const wakes = `${policy.maxWakes} wake${policy.maxWakes === 1 ? "" : "s"}`;
  return {
    reason: "rate-limited",
    retryAfter: Math.max(now, first + policy.windowMs),
    words: `${wakes} in the last ${windowWords(policy.windowMs)}`,
  };
}

/** What a sender reads for a held wake: `held: 6 wakes in the last minute; wakes again after 17:03:12 UTC`. */
export function heldWords(hold: { words: string; retryAfter: string }): string {
  // Braked mail never wakes: it is read at the next turn or from the inbox.
  if (hold.words === BRAKE_WORDS)
    return `held by ${BRAKE_WORDS}; it is read at their next turn or from their inbox, and wakes no one`;
  const time = Number.isNaN(Date.parse(hold.retryAfter))
    ? "the window"
    : `${new Date(hold.retryAfter).toISOString().slice(11, 19)} UTC`;
  return `held: ${hold.words}; wakes again after ${time}`;
}

/** The most wakes a minute the setting may ask for (the slots a member has at most). */
const MAX_PER_MINUTE = MAX_SLOTS;

export type WakeRateSetting =
  | { ok: true; policy: WakePolicy }
  | { ok: false; reason: "bad-wake-rate"; error: string; fix: string; policy: WakePolicy };

/**
 * The wake policy every door uses: core's default, with `MUSTER_WAKE_PER_MINUTE` (a whole number,
 * 1 to 64) as the most wakes per member a minute. A value it does not know is refused with the
 * reason, and the default stands beside it (a door that cannot refuse, such as a waker, keeps the
 * default rate: never a faster one).
 */
export function wakeRateSetting(env: {
  MUSTER_WAKE_PER_MINUTE?: string | undefined;
}): WakeRateSetting {
  const text = env.MUSTER_WAKE_PER_MINUTE?.trim();
  if (!text) return { ok: true, policy: DEFAULT_WAKE_POLICY };
  const value = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
  if (value >= 1 && value <= MAX_PER_MINUTE)
    return { ok: true, policy: { ...DEFAULT_WAKE_POLICY, maxWakes: value, windowMs: 60_000 } };
  return {
    ok: false,
    reason: "bad-wake-rate",
    error: `MUSTER_WAKE_PER_MINUTE is ${JSON.stringify(env.MUSTER_WAKE_PER_MINUTE)}`,
    fix: `set MUSTER_WAKE_PER_MINUTE to a whole number from 1 to ${MAX_PER_MINUTE}, or unset it`,
    policy: DEFAULT_WAKE_POLICY,
  };
}
