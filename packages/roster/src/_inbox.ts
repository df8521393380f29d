// Reading mail: new mail oldest first, acknowledged by a move from new/ to cur/. A file that does
// not parse is moved to quarantine/, never deleted, never fatal.
import {
  checkRealFolder,
  errorCode,
  errorText,
  isTempName,
  listFolder,
  readIfPresent,
  uniqueName,
} from "./_fs.js";
import { type Message, parseMessage } from "./_message.js";
import { markPhase } from "./_receipts.js";
import type { Team } from "./_team.js";
import { validateId } from "./_validate.js";

export type Inbox =
  | { ok: true; messages: Message[]; warnings: string[] }
  | { ok: false; reason: "bad-id" | "unreadable"; error: string; fix?: string | undefined };

/** New mail for a session, oldest first. Mail is not marked read until `ackMail`. */
export async function receiveMail(team: Team, id: string): Promise<Inbox> {
  const valid = validateId(id);
  if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error, fix: valid.fix };
  let fresh: string[];
  let read: Set<string>;
  try {
    fresh = await listFolder(team.fs, team.paths.inboxFolder(id));
    read = new Set(fresh.length > 0 ? await listFolder(team.fs, team.paths.readFolder(id)) : []);
  } catch (error) {
    return {
      ok: false,
      reason: "unreadable",
      error: `cannot read the mailbox of ${id}: ${errorText(error)}`,
    };
  }
  const warnings: string[] = [];
  const messages: Message[] = [];
  for (const name of fresh) {
    if (isTempName(name)) continue;
    const outcome = await takeOne(team, id, name, read);
    if (typeof outcome === "string") warnings.push(outcome);
    else if (outcome) messages.push(outcome);
  }
  messages.sort(
    (left, right) => left.sentAt.localeCompare(right.sentAt) || left.id.localeCompare(right.id),
  );
  return { ok: true, messages, warnings };
}

/** One entry of new/: a message, nothing (gone, or a duplicate), or a warning naming it. */
async function takeOne(
  team: Team,
  id: string,
  name: string,
  read: Set<string>,
): Promise<Message | string | undefined> {
  const file = `${team.paths.inboxFolder(id)}/${name}`;
  const messageId = name.endsWith(".json") ? name.slice(0, -5) : "";
  const named = validateId(messageId).ok;
  if (read.has(name) && named) {
    // Delivered again after a crash, and already read: recognised by id, shown once.
    await team.fs.unlink(file).catch(() => undefined);
    return undefined;
  }
  let text: string | undefined;
  let reason = "is not a message";
  try {
    text = await readIfPresent(team.fs, file);
    if (text === undefined) return undefined; // acknowledged by another reader since the listing
  } catch (error) {
    reason = `cannot be read (${errorCode(error) ?? errorText(error)})`;
  }
  const message = named && text !== undefined ? parseMessage(text, messageId) : undefined;
  if (message) return message;
  // A folder, a FIFO, a file that does not parse: moved aside, never deleted, never fatal.
  const aside = team.paths.quarantineFile(`${uniqueName(team.clock())}-${id}-${name}`);
  const moved = await team.fs.rename(file, aside).then(
    () => true,
    () => false,
  );
  return `mail/${id}/new/${name} ${reason}; ${moved ? "moved to quarantine/" : "skipped"}`;
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
  | { ok: false; reason: "bad-id" | "unwritable"; error: string; fix?: string | undefined }
> {
  const valid = validateId(id);
  if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error, fix: valid.fix };
  const acked: string[] = [];
  const missing: string[] = [];
  const inbox = team.paths.inboxFolder(id);
  const readFolder = team.paths.readFolder(id);
  try {
    // A move through a planted symlink would pull a file in from outside the team.
    await checkRealFolder(team.fs, inbox);
    await checkRealFolder(team.fs, readFolder);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { ok: true, acked, missing: [...messageIds] };
    return {
      ok: false,
      reason: "unwritable",
      error: `cannot mark mail read for ${id}: ${errorText(error)}`,
    };
  }
  for (const messageId of messageIds) {
    if (!validateId(messageId, "message id").ok) {
      missing.push(messageId);
      continue;
    }
    try {
      await team.fs.rename(`${inbox}/${messageId}.json`, `${readFolder}/${messageId}.json`);
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
  // The receipt's last phase; the mail is read whether or not the mark can be written.
  if (acked.length > 0) await markPhase(team, "acknowledged", id, acked);
  return { ok: true, acked, missing };
}

/** How many messages wait unread: regular files named like messages, nothing else. */
export async function unreadCount(team: Team, id: string): Promise<number> {
  return (await waitingMail(team, id)).count;
}

/** Mail waiting unread: how many, and when the oldest was written (its file's time). */
export async function waitingMail(
  team: Team,
  id: string,
): Promise<{ count: number; oldestAt?: string }> {
  if (!validateId(id).ok) return { count: 0 };
  const inbox = team.paths.inboxFolder(id);
  const names = await listFolder(team.fs, inbox).catch(() => []);
  const candidates = names.filter((name) => name.endsWith(".json") && !isTempName(name));
  const facts = await Promise.all(
    candidates.map((name) => team.fs.lstat(`${inbox}/${name}`).catch(() => undefined)),
  );
  const mail = facts.filter((fact) => fact && !fact.isDirectory && fact.isFile !== false);
  if (mail.length === 0) return { count: 0 };
  const oldest = Math.min(...mail.map((fact) => fact!.mtimeMs));
  return { count: mail.length, oldestAt: new Date(oldest).toISOString() };
}
