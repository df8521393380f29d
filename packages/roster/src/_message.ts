// A message as it is stored in a mailbox, and its strict parser: a file that does not parse as a
// message of its own id is not mail.

export type Message = {
  v: 1;
  id: string;
  /** The sender; `guest` when it was not a member and could not be answered by label. */
  from: { id: string; label: string; guest?: boolean | undefined };
  /** The address as sent: a label, or `all`. */
  to: string;
  body: string;
  urgent: boolean;
  replyTo?: string | undefined;
  /** How many times this thread has been passed on; the wake policy reads it. */
  hops: number;
  sentAt: string;
  /** The id of the message that began its conversation (its own, for a new one): the loop brake's count. */
  conversation?: string | undefined;
  /** Sent past its conversation's budget: it arrives, and wakes no one. */
  braked?: boolean | undefined;
  /** Set when the message was forwarded from a previous holder of the label it was sent to. */
  forwardedFrom?: { id: string; label: string } | undefined;
};

export function parseMessage(text: string, id: string): Message | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const message = value as Partial<Message> | null;
  const valid =
    typeof message === "object" &&
    message !== null &&
    message.v === 1 &&
    message.id === id &&
    typeof message.body === "string" &&
    typeof message.to === "string" &&
    typeof message.from?.id === "string" &&
    typeof message.from?.label === "string" &&
    typeof message.urgent === "boolean" &&
    Number.isInteger(message.hops) &&
    typeof message.sentAt === "string" &&
    (message.conversation === undefined || typeof message.conversation === "string") &&
    (message.braked === undefined || typeof message.braked === "boolean") &&
    (message.forwardedFrom === undefined ||
      (typeof message.forwardedFrom?.id === "string" &&
        typeof message.forwardedFrom?.label === "string"));
  return valid ? (message as Message) : undefined;
}
