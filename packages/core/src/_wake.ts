// The wake policy: whether a message is pushed into a session, and whether it may wake the agent.
// Pure: the caller keeps the record of recent wakes and passes it in with the clock's reading.
import type { Watching } from "./_types.js";

export type WakePolicy = {
  /** A message that has been passed on more times than this never wakes anyone. */
  maxHops: number;
  /** At most this many wakes per session within `windowMs`. */
  maxWakes: number;
  windowMs: number;
};

/** Defaults: 4 hops, and at most 6 wakes a minute per session. */
export const DEFAULT_WAKE_POLICY: WakePolicy = { maxHops: 4, maxWakes: 6, windowMs: 60_000 };

/** As much of a message as the policy reads. */
export type MailFacts = { id: string; urgent?: boolean | undefined; hops?: number | undefined };

/** A wake this session already took: when, and for which message. */
export type RecentWake = { at: number; messageId: string };

export type Delivery =
  /** Nothing is pushed; the mail waits in the mailbox. */
  | { action: "hold"; why: "not-listening" }
  /** Pushed into the session for its next turn, without waking it. */
  | {
      action: "deliver";
      wake: false;
      why: "no-wake" | "hop-limit" | "rate-limited" | "already-woken";
    }
  /** Pushed and wakes the agent: urgent mail steers the current turn, other mail follows it. */
  | { action: "deliver"; wake: true; mode: "steer" | "follow-up" };

/** Decide how one message reaches one session. */
export function decideDelivery(
  message: MailFacts,
  watching: Watching,
  recentWakes: readonly RecentWake[],
  now: number,
  policy: WakePolicy = DEFAULT_WAKE_POLICY,
): Delivery {
  if (!watching.armed) return { action: "hold", why: "not-listening" };
  if (!watching.wake) return { action: "deliver", wake: false, why: "no-wake" };
  if ((message.hops ?? 0) > policy.maxHops)
    return { action: "deliver", wake: false, why: "hop-limit" };
  // A broadcast (or a redelivery) wakes a recipient once at most.
  if (recentWakes.some((wake) => wake.messageId === message.id)) {
    return { action: "deliver", wake: false, why: "already-woken" };
  }
  const inWindow = recentWakes.filter((wake) => now - wake.at < policy.windowMs).length;
  if (inWindow >= policy.maxWakes) return { action: "deliver", wake: false, why: "rate-limited" };
  return { action: "deliver", wake: true, mode: message.urgent ? "steer" : "follow-up" };
}

/** The wakes still inside the policy's window, plus this one: what the caller keeps. */
export function recordWake(
  recentWakes: readonly RecentWake[],
  wake: RecentWake,
  policy: WakePolicy = DEFAULT_WAKE_POLICY,
): RecentWake[] {
  return [...recentWakes.filter((earlier) => wake.at - earlier.at < policy.windowMs), wake];
}
