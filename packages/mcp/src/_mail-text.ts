// Mail and labels as a model reads them: text another process wrote, its controls shown visibly.
import { printable } from "@muster/core";
import type { Message } from "@muster/roster";

/** Text another process wrote, on one line: controls shown visibly, never acted on. */
export const clean = (text: string) => printable(text);
const cleanBody = (text: string) => printable(text, { lines: true });

export function formatMail(messages: readonly Message[]): string {
  if (messages.length === 0) return "No new mail.";
  return messages
    .map((message) => {
      const urgent = message.urgent ? " (urgent)" : "";
      const reply = message.replyTo ? `, replying to ${message.replyTo}` : "";
      return `From ${clean(message.from.label)}${urgent}, id ${message.id}${reply}:\n${cleanBody(message.body)}`;
    })
    .join("\n\n");
}
