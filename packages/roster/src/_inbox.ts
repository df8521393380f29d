// Reading mail: new mail oldest first, acknowledged by a move from new/ to cur/. A file that does
// not parse is moved to quarantine/, never deleted, never fatal.
import { errorCode, errorText, isTempName, listFolder, readIfPresent, uniqueName } from "./_fs.js";
import { type Message, parseMessage } from "./_message.js";
import type { Team } from "./_team.js";
import { validateId } from "./_validate.js";

export type Inbox =
  | { ok: true; messages: Message[]; warnings: string[] }
  | { ok: false; reason: "bad-id" | "unreadable"; error: string };

/** New mail for a session, oldest first. Mail is not marked read until `ackMail`. */
export async function receiveMail(team: Team, id: string): Promise<Inbox> {
  const valid = validateId(id);
  if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error };
  const mailbox = team.paths.mailbox(id);
  const warnings: string[] = [];
  const messages: Message[] = [];
  try {
    const fresh = await listFolder(team.fs, `${mailbox}/new`);
    const read = new Set(fresh.length > 0 ? await listFolder(team.fs, `${mailbox}/cur`) : []);
    for (const name of fresh) {
      if (isTempName(name)) continue;
      const file = `${mailbox}/new/${name}`;
      const messageId = name.endsWith(".json") ? name.slice(0, -5) : "";
      if (read.has(name) && validateId(messageId).ok) {
        // Delivered again after a crash, and already read: recognised by id, shown once.
        await team.fs.unlink(file).catch(() => undefined);
        continue;
      }
      const text = await readIfPresent(team.fs, file);
      if (text === undefined) continue; // acknowledged by another reader since the listing
      const message = validateId(messageId).ok ? parseMessage(text, messageId) : undefined;
      if (message) {
        messages.push(message);
        continue;
      }
      const aside = team.paths.quarantineFile(`${uniqueName(team.clock())}-${id}-${name}`);
      await team.fs.rename(file, aside).catch(() => undefined);
      warnings.push(`mail/${id}/new/${name} is not a message; moved to quarantine/`);
    }
  } catch (error) {
    return {
      ok: false,
      reason: "unreadable",
      error: `cannot read the mailbox of ${id}: ${errorText(error)}`,
    };
  }
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
  for (const folder of [team.paths.inboxFolder(id), team.paths.readFolder(id)]) {
    const text = await readIfPresent(team.fs, `${folder}/${messageId}.json`).catch(() => undefined);
    const message = text === undefined ? undefined : parseMessage(text, messageId);
    if (message) return message;
  }
  return undefined;
}

/** Mark messages read (new/ → cur/). Ids that are not waiting are reported, not an error. */
export async function ackMail(
  team: Team,
  id: string,
  messageIds: readonly string[],
): Promise<
  | { ok: true; acked: string[]; missing: string[] }
  | { ok: false; reason: "bad-id" | "unwritable"; error: string }
> {
  const valid = validateId(id);
  if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error };
  const acked: string[] = [];
  const missing: string[] = [];
  const mailbox = team.paths.mailbox(id);
  for (const messageId of messageIds) {
    if (!validateId(messageId, "message id").ok) {
      missing.push(messageId);
      continue;
    }
    try {
      await team.fs.rename(`${mailbox}/new/${messageId}.json`, `${mailbox}/cur/${messageId}.json`);
      acked.push(messageId);
    } catch (error) {
      if (errorCode(error) !== "ENOENT") {
        return {
          ok: false,
          reason: "unwritable",
          error: `cannot mark mail read for ${id}: ${errorText(error)}`,
        };
      }
      missing.push(messageId);
    }
  }
  return { ok: true, acked, missing };
}

/** How many messages wait unread. */
export async function unreadCount(team: Team, id: string): Promise<number> {
  if (!validateId(id).ok) return 0;
  const names = await listFolder(team.fs, team.paths.inboxFolder(id)).catch(() => []);
  return names.filter((name) => name.endsWith(".json") && !isTempName(name)).length;
}
