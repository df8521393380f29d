// The loop brake's count, kept for the whole team: a conversation's turn slots in the `wakes`
// space (`turn.<conversation>.<n>`, exclusive claims, as a member's wake-rate slots), and one
// `brake.<conversation>` claim that the first send past the budget takes, so the lead and the
// person are told once a window. How many and when a slot frees are core's rule
// (conversationTurns), passed in. Store-agnostic: only the claim (create, compare-and-swap).
import { takeClaim } from "./_claim.js";
import { receivedMail } from "./_inbox.js";
import type { Team } from "./_team.js";
import { uniqueName } from "./_unique.js";
import type { WakeSlots } from "./_wake-rate.js";

/** A conversation's budget, as core's conversationTurns gives it. */
export type ConversationTurns = WakeSlots & {
  hold: (takenAt: readonly number[], now: number) => { words: string; retryAfter: number };
};

/** A braked send: why, and whether this send is the first past the budget (then tell, once). */
export type Brake = { words: string; retryAfter: number; first: boolean };

import { takeWakeSlot, turnSlotKey } from "./_wake-rate.js";

/** The key of the claim the first braked send of a conversation takes. */
export const brakeKey = (conversation: string) => `brake.${conversation}`;

/**
 * The conversation of a message `senderId` sends: the one the message it answers carries (its own
 * copy, in its mailbox), the answered id when that copy is not there or carries none, else its own.
 */
export async function replyConversation(
  team: Team,
  senderId: string,
  messageId: string,
  replyTo: string | undefined,
): Promise<string> {
  if (replyTo === undefined) return messageId;
  const answered = await receivedMail(team, senderId, replyTo);
  return answered?.conversation ?? replyTo;
}

/** Take one of the conversation's turns: undefined while within budget, else the brake. */
export async function countTurn(
  team: Team,
  conversation: string,
  turns: ConversationTurns,
): Promise<Brake | undefined> {
  const taken = await takeWakeSlot(team, conversation, "turn", turns, turnSlotKey);
  if (taken.ok || taken.reason !== "rate-limited") return undefined;
  const now = team.clock();
  const claimed = await takeClaim(team, {
    space: "wakes",
    key: brakeKey(conversation),
    holder: `brake-${uniqueName(now).slice(-12)}`,
    judge: async (current, at) =>
      turns.free(Date.parse(current.at), at)
        ? { free: true, reason: "expired" }
        : { free: false, held: current.holder },
  });
  return { ...turns.hold(taken.takenAt, now), first: claimed.ok };
}
