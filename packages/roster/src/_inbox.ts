// Reading mail: new mail oldest first, acknowledged in the store. An entry that does not parse is
// set aside (quarantine), never deleted, never fatal.
import { errorText } from "./_error.js";
import { type Message, parseMessage } from "./_message.js";
import { markPhase } from "./_receipts.js";
import type { MailListing } from "./_store.js";
import type { Team } from "./_team.js";
import { validateId } from "./_validate.js";

export type Inbox =
  | { ok: true; messages: Message[]; warnings: string[] }
  | { ok: false; reason: "bad-id" | "unreadable"; error: string; fix?: string | undefined };

/**
 * How many entries an inbox discards or sets aside at once: on NATS each is a few round trips, and
 * a teammate's window of 1,000 junk messages, one after another, was seconds on every inbox read.
 */
const AT_ONCE = 16;

/** `run` of each item, `AT_ONCE` at a time; its answers in the items' order. */
async function inTurns<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const answers: R[] = [];
  for (let first = 0; first < items.length; first += AT_ONCE)
    answers.push(...(await Promise.all(items.slice(first, first + AT_ONCE).map(run))));
  return answers;
}

/** New mail for a session, oldest first. Mail is not marked read until `ackMail`. */
export async function receiveMail(team: Team, id: string): Promise<Inbox> {
  const valid = validateId(id);
  if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error, fix: valid.fix };
  let listing: MailListing;
  try {
    listing = await team.store.mail.unread(id);
  } catch (error) {
    return {
      ok: false,
      reason: "unreadable",
      error: `cannot read the mailbox of ${id}: ${errorText(error)}`,
    };
  }
  const messages: Message[] = [];
  // Delivered again after a crash, and already read: recognised by id, shown once.
  await inTurns(listing.duplicates, async (name) => {
    await team.store.mail.discard(id, name);
  });
  // A folder, a FIFO, a file that does not parse: moved aside, never deleted, never fatal.
  const aside = listing.strays.map((stray) => ({ name: stray.name, reason: stray.error }));
  for (const entry of listing.messages) {
    const message = parseMessage(entry.text, entry.id);
    if (message) messages.push(message);
    else aside.push({ name: entry.name, reason: "is not a message" });
  }
  const warnings = await inTurns(aside, async ({ name, reason }) => {
    const moved = await team.store.mail.discard(id, name, { setAside: true });
    return `mail/${id}/new/${name} ${reason}; ${moved ? "moved to quarantine/" : "skipped"}`;
  });
  messages.sort(
    (left, right) => left.sentAt.localeCompare(right.sentAt) || left.id.localeCompare(right.id),
  );
  return { ok: true, messages, warnings };
}

/**
 * A message this member received, read or not, by its id: what a reply's hop count is counted
 * from. Undefined when there is none, or it does not parse; ids are checked before any path.
 */
export async function receivedMail(
  team: Team,
  id: string,
  messageId: string,
): Promise<Message | undefined> {
  if (!validateId(id).ok || !validateId(messageId, "message id").ok) return undefined;
  const entry = await team.store.mail.get(id, messageId).catch(() => undefined);
  return entry && parseMessage(entry.text, messageId);
}

/** Mark messages read. Ids that are not waiting are reported, not an error. */
export async function ackMail(
  team: Team,
  id: string,
  messageIds: readonly string[],
): Promise<
  | { ok: true; acked: string[]; missing: string[] }
  | { ok: false; reason: "bad-id" | "unwritable"; error: string; fix?: string | undefined }
> {
  const valid = validateId(id);
  if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error, fix: valid.fix };
  const named = messageIds.filter((messageId) => validateId(messageId, "message id").ok);
  let done: { acked: string[]; missing: string[] };
  try {
    done = await team.store.mail.ack(id, named);
  } catch (error) {
    return {
      ok: false,
      reason: "unwritable",
      error: `cannot mark mail read for ${id}: ${errorText(error)}`,
    };
  }
  const missing = [
    ...messageIds.filter((messageId) => !named.includes(messageId)),
    ...done.missing,
  ];
  // The receipt's last phase; the mail is read whether or not the mark can be written.
  if (done.acked.length > 0) await markPhase(team, "acknowledged", id, done.acked);
  return { ok: true, acked: done.acked, missing };
}

/** How many messages wait unread. */
export async function unreadCount(team: Team, id: string): Promise<number> {
  return (await waitingMail(team, id)).count;
}

/** Mail waiting unread: how many, and when the oldest was stored. */
export async function waitingMail(
  team: Team,
  id: string,
): Promise<{ count: number; oldestAt?: string }> {
  if (!validateId(id).ok) return { count: 0 };
  const waiting = await team.store.mail
    .waiting(id)
    .catch(() => ({ count: 0, oldestAt: undefined }));
  if (waiting.count === 0 || waiting.oldestAt === undefined) return { count: waiting.count };
  return { count: waiting.count, oldestAt: new Date(waiting.oldestAt).toISOString() };
}
