// What a sender is told of each recipient: what it is doing now (its activity, as `activityNow`
// believes it) and when, therefore, it will see the mail. A working agent's turn takes mail at its
// end and one waiting for the person goes on once answered (see `wakeFromOutside`), so "now" is
// never promised to either; a state not known is not guessed, and the line is the reach alone.
import type { ActivityState } from "./_activity.js";
import { MAIL_REACH_WORDS, type MailReach } from "./_mail-reach.js";

/** What each known state says of the recipient, in the words a sender reads. */
const DOING: Partial<Record<ActivityState, string>> = {
  working: "is working",
  idle: "is idle",
  "needs-you": "is waiting for you",
  starting: "is starting",
  trouble: "cannot run a turn",
};

/** When a recipient in this state sees pushed mail, where that differs from its reach alone. */
const PUSHED_WHEN: Partial<Record<ActivityState, string>> = {
  working: "will see it when this turn ends",
  "needs-you": "will see it once you answer it and its turn ends",
  trouble: "it waits until its engine can run a turn (see its pane)",
};

/** One recipient's line: `alice is working: will see it when this turn ends`. */
export function recipientLine(label: string, reach: MailReach, state: ActivityState): string {
  const doing = DOING[state];
  if (!doing) return `${label}: ${MAIL_REACH_WORDS[reach]}`;
  const pushed = reach === "wakes" || reach === "next-turn";
  const when = (pushed && PUSHED_WHEN[state]) || MAIL_REACH_WORDS[reach];
  return `${label} ${doing}: ${when}`;
}
