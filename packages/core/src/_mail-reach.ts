// How one send reaches one recipient (`mailReach`), and its words: what a sender is told at once.
import { isPerson } from "./_activity.js";
import type { Watching } from "./_types.js";
import { DEFAULT_WAKE_POLICY, decideDelivery, type MailFacts } from "./_wake.js";

/**
 * How one send reaches one recipient, as the sender is told at once. `person`: the member is a
 * person at a shell (joined with `muster join`), whom no mail pushes into or wakes.
 */
export type MailReach = "wakes" | "next-turn" | "not-pushed" | "person";

/** What each reach means, in the words a sender reads. */
export const MAIL_REACH_WORDS: Readonly<Record<MailReach, string>> = {
  wakes: "will see it now (it wakes them)",
  "next-turn": "will see it at their next turn",
  "not-pushed": "will see it only when they read their inbox",
  person: "sees it with muster inbox (at once where a muster inbox --follow runs)",
};

/**
 * How mail reaches a recipient with this listening choice, by the wake policy: pushed and waking,
 * pushed for the next turn, or left in the inbox. Counted as a first wake (the sender cannot see
 * the recipient's recent wakes), so a rate-limited recipient may still only see it next turn.
 * A member that is a person (`member`: its record's agent and id) reads its inbox itself, whatever
 * its record says about listening: there is no turn to push into and nothing to wake.
 */
export function mailReach(
  message: MailFacts,
  watching: Watching,
  member?: { agent: string; id: string } | undefined,
): MailReach {
  if (member && isPerson(member)) return "person";
  const delivery = decideDelivery(message, watching, [], 0, DEFAULT_WAKE_POLICY);
  return delivery.action === "hold" ? "not-pushed" : delivery.wake ? "wakes" : "next-turn";
}
