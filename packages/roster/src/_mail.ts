// Each session's mailbox, a maildir: a message is written under tmp/, delivered by a rename into
// new/, and acknowledged by a rename into cur/. A send is checked whole before anything is written;
// a mailbox file that does not parse is moved to quarantine/, never deleted, never fatal.
import {
  ensureFolders,
  errorCode,
  errorText,
  FILE_MODE,
  isTempName,
  listIfPresent,
  maildirFolders,
  readIfPresent,
  uniqueName,
} from "./_fs.js";
import type { Member, Roster } from "./_roster.js";
import { labelKey, MAX_BODY_BYTES, utf8Length, validateId } from "./_validate.js";

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
};

export type SendInput = {
  /** The sender: a session id, or the label it holds. */
  from: string;
  /** A label, or `all` for every live member but the sender. */
  to: string;
  body: string;
  urgent?: boolean | undefined;
  replyTo?: string | undefined;
  hops?: number | undefined;
  /** A message id chosen by the caller, so a retried send is recognised and not delivered twice. */
  id?: string | undefined;
  /**
   * A name to send under when `from` (then a session id) is not a member: the message still goes,
   * marked as a guest's. Without it, a sender that is not a member is refused.
   */
  guest?: string | undefined;
};

export type SendRefusal =
  | "empty-body"
  | "body-too-large"
  | "bad-input"
  | "not-member"
  | "no-live-holder"
  | "no-recipients"
  | "roster-unknown"
  | "unwritable";

export type Receipt =
  | {
      ok: true;
      id: string;
      to: { id: string; label: string; duplicate: boolean }[];
      sentAt: string;
    }
  | { ok: false; reason: SendRefusal; error: string };

export type Inbox =
  | { ok: true; messages: Message[]; warnings: string[] }
  | { ok: false; reason: "bad-id" | "unreadable"; error: string };

const refuse = (reason: SendRefusal, error: string): Receipt => ({ ok: false, reason, error });

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
    typeof message.sentAt === "string";
  return valid ? (message as Message) : undefined;
}

/** Who a send from `from` to `to` reaches, or why nobody. */
function recipients(members: Member[], input: SendInput) {
  const { from, to } = input;
  const live = members.filter((member) => member.state === "live" && member.holdsLabel);
  const member =
    live.find((candidate) => candidate.id === from) ??
    live.find((candidate) => labelKey(candidate.label) === labelKey(from));
  const sender: Message["from"] | undefined = member
    ? { id: member.id, label: member.label }
    : input.guest !== undefined && validateId(from).ok
      ? { id: from, label: input.guest, guest: true }
      : undefined;
  if (!sender) {
    return refuse(
      "not-member",
      `"${from}" is not a live member of this team; join first (muster join <label>)`,
    );
  }
  if (labelKey(to) === "all") {
    const everyone = live.filter((candidate) => candidate.id !== sender.id);
    if (everyone.length === 0)
      return refuse("no-recipients", "no other live member is on the team to receive it");
    return { sender, to: everyone };
  }
  const holder = members.find(
    (candidate) => candidate.holdsLabel && labelKey(candidate.label) === labelKey(to),
  );
  if (!holder)
    return refuse(
      "no-live-holder",
      `nobody holds the label "${to}"; see who is on the team with muster roster`,
    );
  if (holder.state !== "live") {
    return refuse(
      "no-live-holder",
      `"${holder.label}" is ${holder.state} (${holder.why}); the message was not sent`,
    );
  }
  return { sender, to: [holder] };
}

/** Send one message to a label or to everyone. Nothing is written unless every check passes. */
export async function sendMail(roster: Roster, input: SendInput): Promise<Receipt> {
  if (typeof input.body !== "string" || input.body.trim() === "")
    return refuse("empty-body", "the message is empty");
  const size = utf8Length(input.body);
  if (size > MAX_BODY_BYTES) {
    return refuse(
      "body-too-large",
      `the message is ${size} bytes; the limit is ${MAX_BODY_BYTES} (64 KiB): send a path instead`,
    );
  }
  const hops = input.hops ?? 0;
  if (!Number.isInteger(hops) || hops < 0)
    return refuse("bad-input", "hops must be a whole number, 0 or more");
  for (const [what, id] of [
    ["message id", input.id],
    ["reply-to message id", input.replyTo],
  ] as const) {
    if (id === undefined) continue;
    const valid = validateId(id, what);
    if (!valid.ok) return refuse("bad-input", valid.error);
  }
  const team = await roster.read();
  if (!team.ok) return refuse("roster-unknown", team.error);
  if (
    input.guest !== undefined &&
    (typeof input.guest !== "string" || !/^[^\n]{1,64}$/.test(input.guest))
  ) {
    return refuse("bad-input", "a guest name is 1-64 characters on one line");
  }
  const resolved = recipients(team.members, input);
  if ("ok" in resolved) return resolved;
  const now = roster.clock();
  const message: Message = {
    v: 1,
    id: input.id ?? uniqueName(now),
    from: resolved.sender,
    to: input.to,
    body: input.body,
    urgent: input.urgent === true,
    replyTo: input.replyTo,
    hops,
    sentAt: new Date(now).toISOString(),
  };
  const text = `${JSON.stringify(message)}\n`;
  const delivered: { id: string; label: string; duplicate: boolean }[] = [];
  try {
    for (const member of resolved.to) {
      const mailbox = roster.path("mail", member.id);
      const name = `${message.id}.json`;
      const seen =
        (await readIfPresent(roster.fs, `${mailbox}/new/${name}`)) ??
        (await readIfPresent(roster.fs, `${mailbox}/cur/${name}`));
      if (seen !== undefined) {
        delivered.push({ id: member.id, label: member.label, duplicate: true });
        continue;
      }
      await ensureFolders(roster.fs, maildirFolders(mailbox));
      // maildir: a half-written file can only ever sit in tmp/, which prune clears.
      await roster.fs.writeFile(`${mailbox}/tmp/${name}`, text, FILE_MODE);
      await roster.fs.rename(`${mailbox}/tmp/${name}`, `${mailbox}/new/${name}`);
      delivered.push({ id: member.id, label: member.label, duplicate: false });
    }
  } catch (error) {
    return refuse("unwritable", `cannot write to the mailbox: ${errorText(error)}`);
  }
  return { ok: true, id: message.id, to: delivered, sentAt: message.sentAt };
}

/** New mail for a session, oldest first. Mail is not marked read until `ackMail`. */
export async function receiveMail(roster: Roster, id: string): Promise<Inbox> {
  const valid = validateId(id);
  if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error };
  const mailbox = roster.path("mail", id);
  const warnings: string[] = [];
  const messages: Message[] = [];
  try {
    const fresh = await listIfPresent(roster.fs, `${mailbox}/new`);
    const read = new Set(fresh.length > 0 ? await listIfPresent(roster.fs, `${mailbox}/cur`) : []);
    for (const name of fresh) {
      if (isTempName(name)) continue;
      const file = `${mailbox}/new/${name}`;
      const messageId = name.endsWith(".json") ? name.slice(0, -5) : "";
      if (read.has(name) && validateId(messageId).ok) {
        // Delivered again after a crash, and already read: recognised by id, shown once.
        await roster.fs.unlink(file).catch(() => undefined);
        continue;
      }
      const text = await readIfPresent(roster.fs, file);
      if (text === undefined) continue; // acknowledged by another reader since the listing
      const message = validateId(messageId).ok ? parseMessage(text, messageId) : undefined;
      if (message) {
        messages.push(message);
        continue;
      }
      const aside = roster.path("quarantine", `${uniqueName(roster.clock())}-${id}-${name}`);
      await roster.fs.rename(file, aside).catch(() => undefined);
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

/** Mark messages read (new/ → cur/). Ids that are not waiting are reported, not an error. */
export async function ackMail(
  roster: Roster,
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
  const mailbox = roster.path("mail", id);
  for (const messageId of messageIds) {
    if (!validateId(messageId, "message id").ok) {
      missing.push(messageId);
      continue;
    }
    try {
      await roster.fs.rename(
        `${mailbox}/new/${messageId}.json`,
        `${mailbox}/cur/${messageId}.json`,
      );
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
export async function unreadCount(roster: Roster, id: string): Promise<number> {
  if (!validateId(id).ok) return 0;
  const names = await listIfPresent(roster.fs, roster.path("mail", id, "new")).catch(() => []);
  return names.filter((name) => name.endsWith(".json") && !isTempName(name)).length;
}
