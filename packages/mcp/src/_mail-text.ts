// Mail and labels as a model reads them: text another process wrote, its controls shown visibly,
// a teammate's mail in core's one format (its sender's standing, the notice, its body quoted).
import { mailListForAgent, printable, type SenderRecord, senderStanding } from "@muster/core";
import type { Message } from "@muster/roster";

/** Text another process wrote, on one line: controls shown visibly, never acted on. */
export const clean = (text: string) => printable(text);

/** Each message with its sender's standing, judged from the team's members (undefined: unread). */
export const withStanding = (
  messages: readonly Message[],
  members: readonly SenderRecord[] | undefined,
) => messages.map((message) => ({ message, standing: senderStanding(message.from, members) }));

export function formatMail(
  messages: readonly Message[],
  members: readonly SenderRecord[] | undefined,
): string {
  return mailListForAgent(withStanding(messages, members));
}
