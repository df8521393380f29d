// The loop brake, across the team and not per pair: every reply carries its conversation (the id
// of the message that began it), and a conversation has a budget of messages across all its
// members in a window. Past it, mail still arrives but wakes no one (its receipts say why, for a
// sender's --wait), and the board's lead and the person are told once. Three agents bouncing
// replies A→B→C→A are each within any pair's cap; the conversation's count is not. Pure: the
// roster keeps the count (exclusive slots, `turn.<conversation>.<n>`, as the wake rate's) and
// gives each message its conversation (the roster's send: what the answered message carries).

/** At most this many messages of one conversation within `CONVERSATION_WINDOW_MS` wake anyone. */
export const CONVERSATION_TURNS = 12;
export const CONVERSATION_WINDOW_MS = 10 * 60_000;

/** Why braked mail woke no one, in the sender's words (core's heldWords adds the time). */
export const BRAKE_WORDS = `the loop brake: this conversation had ${CONVERSATION_TURNS} messages in ${CONVERSATION_WINDOW_MS / 60_000} minutes`;

/**
 * A conversation's turn slots, as the roster takes them (its WakeSlots): one slot per message, free
 * again once older than the window (a slot dated further ahead than a window was not taken by a
 * message that was sent, and is free). `hold` is what a braked message's receipt says.
 */
export const conversationTurns = () => ({
  slots: CONVERSATION_TURNS,
  free: (takenAt: number, now: number) =>
    !Number.isFinite(takenAt) ||
    now - takenAt >= CONVERSATION_WINDOW_MS ||
    takenAt - now > CONVERSATION_WINDOW_MS,
  hold: (takenAt: readonly number[], now: number) => ({
    words: BRAKE_WORDS,
    retryAfter: Math.max(
      now,
      Math.min(now, ...takenAt.filter(Number.isFinite)) + CONVERSATION_WINDOW_MS,
    ),
  }),
});

/** The line the lead and the person are told, once, when a conversation is braked. */
export function brakeLine(labels: readonly string[], conversation: string): string {
  const who = labels.length > 0 ? ` among ${labels.join(", ")}` : "";
  return `Loop brake: a conversation${who} passed ${CONVERSATION_TURNS} messages in ${CONVERSATION_WINDOW_MS / 60_000} minutes; its mail still arrives but wakes no one (conversation ${conversation}).`;
}
