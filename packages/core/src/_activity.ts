// Whether a member's agent is in a turn (busy) or waiting for input (idle), as its engine's own
// signals tell it, and what that means for waking mail. Pure: the caller records the activity and
// passes it back in with the clock's reading.

/** What the agent is doing, by its engine's last word. */
export type ActivityState = "idle" | "busy";

/** A recorded activity: the state and when the engine said so (ms since the epoch). */
export type Activity = { state: ActivityState; at: number };

/** The engine signals that move a member between busy and idle. */
export type ActivitySignal =
  /** The session started (or was cleared): it waits for input. */
  | "session-start"
  /** A turn started: a prompt was submitted, or the session was woken. */
  | "turn-start"
  /** A turn was continued instead of ending (a Stop hook blocked with mail). */
  | "turn-continued"
  /** A turn ended. */
  | "turn-end"
  /** The engine says it has been waiting for input (Claude Code's `idle_prompt`). */
  | "idle-prompt";

/** The state a signal leaves the member in. */
export const activityAfter = (signal: ActivitySignal): ActivityState =>
  signal === "turn-start" || signal === "turn-continued" ? "busy" : "idle";

/**
 * How long a busy mark is believed without a word from the engine. A turn the user interrupts ends
 * with no Stop hook and, measured with Claude Code 2.1.332, no `idle_prompt` either; past this the
 * mark is stale and mail wakes the session again (a wake of a session that is in fact busy only
 * queues its next turn).
 */
export const BUSY_BELIEVED_MS = 15 * 60_000;

/** The member's activity as far as it can be believed now; undefined when nothing is known. */
export function believedActivity(
  activity: Activity | undefined,
  now: number,
): ActivityState | undefined {
  if (!activity) return undefined;
  // A mark from too long ago, or dated as far in the future, is not believed.
  if (activity.state === "busy" && Math.abs(now - activity.at) > BUSY_BELIEVED_MS) return undefined;
  return activity.state;
}

/**
 * Who starts the turn for mail that may wake the member: a busy agent's own turn takes it at its
 * end (Claude Code's Stop hook continues the turn), so nothing else should; an idle agent, or one
 * whose activity is not known, is woken now.
 */
export const wakeFromOutside = (activity: Activity | undefined, now: number): boolean =>
  believedActivity(activity, now) !== "busy";
