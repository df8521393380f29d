// Sending: a message to a label or to everyone, checked whole before anything is written, then
// delivered into each recipient's mailbox in the store. A send to one label reads only the
// records it names (`_address.ts`); any other, and any refusal, reads the whole team.
import { addressByKey } from "./_address.js";
import { errorText } from "./_error.js";
import { type Member, readTeam } from "./_members.js";
import type { Message } from "./_message.js";
import { HOW, markPhase, markWakeHeld } from "./_receipts.js";
import type { HeldLabel, Team } from "./_team.js";
import { type Brake, type ConversationTurns, countTurn, replyConversation } from "./_turns.js";
import { uniqueName } from "./_unique.js";
import { bodyTooLarge, labelKey, MAX_BODY_BYTES, utf8Length, validateId } from "./_validate.js";

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
  /**
   * The door that already showed it to the recipient another way (`prompt`: a spawned engine's
   * first prompt): it goes into the recipient's read mail, its receipt marked delivered by that
   * door and acknowledged, so it is never unread there and wakes nobody.
   */
  shown?: string | undefined;
  /**
   * The loop brake (core's conversationTurns): each message takes one of its conversation's turn
   * slots; with none free it is sent braked (it wakes no one, its receipts say why). Without it,
   * no count is kept.
   */
  turns?: ConversationTurns | undefined;
};

export type SendRefusal =
  | "empty-body"
  | "body-too-large"
  | "bad-input"
  | "not-member"
  | "no-live-holder"
  | "no-recipients"
  | "to-self"
  | "roster-unknown"
  | "unwritable";

/**
 * A recipient the message was written to (`duplicate`: it was there already, a retried send;
 * `down`: a declared member that is down, since then, which will see it when it comes back).
 */
export type Delivery = { id: string; label: string; duplicate: boolean; down?: string | undefined };

/** Whom a send reaches: a live member, or a declared member that is down (its kept mailbox). */
export type Recipient = Member | { id: string; label: string; down: string };
/** A recipient whose mailbox could not be written: the others still got the message. */
export type Undelivered = { id: string; label: string; reason: "unwritable"; error: string };

export type Receipt =
  | {
      ok: true;
      id: string;
      to: Delivery[];
      refused: Undelivered[];
      sentAt: string;
      /** The conversation it belongs to (the id of the message that began it). */
      conversation: string;
      /** Set when the loop brake held it: it arrived, and woke no one. */
      brake?: Brake | undefined;
    }
  | {
      ok: false;
      reason: SendRefusal;
      error: string;
      fix: string;
      refused?: Undelivered[] | undefined;
    };

/** What to do about each refusal: defined here, beside the checks; composers join it to the error. */
export const SEND_FIXES: Record<SendRefusal, string> = {
  "empty-body": "write the message",
  "body-too-large": "send a path to a file instead",
  "bad-input":
    "give hops as a whole number, message ids of letters, digits, _ and -, and a guest name on one line",
  "not-member": "join the team first",
  "no-live-holder": "send to a label a live member holds (the roster lists them)",
  "no-recipients": "send it once a teammate has joined",
  "to-self": "send it to another label, or to all",
  "roster-unknown": "check the team folder can be read",
  unwritable: "check the team folder is writable (space, permissions)",
};

const refuse = (reason: SendRefusal, error: string) => ({
  ok: false as const,
  reason,
  error,
  fix: SEND_FIXES[reason],
});

/**
 * Who a send from `from` to `to` reaches, or why nobody: the one address check, which `send`
 * makes and a composer sending to several labels makes first for each (so a bad one sends nothing).
 */
export function resolveRecipients(
  members: readonly Member[],
  input: Pick<SendInput, "from" | "to" | "guest">,
  held: readonly HeldLabel[] = [],
): { ok: true; sender: Message["from"]; to: Recipient[] } | (Receipt & { ok: false }) {
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
    return refuse("not-member", `"${from}" is not a live member of this team`);
  }
  if (labelKey(to) === "all") {
    const everyone = live.filter((candidate) => candidate.id !== sender.id);
    if (everyone.length === 0)
      return refuse("no-recipients", "no other live member is on the team to receive it");
    return { ok: true, sender, to: everyone };
  }
  const holder = members.find(
    (candidate) => candidate.holdsLabel && labelKey(candidate.label) === labelKey(to),
  );
  // A declared member that is down: its mail waits in its kept mailbox for its return.
  const kept = held.find((entry) => labelKey(entry.label) === labelKey(to));
  if (kept && holder?.state !== "live" && kept.id !== sender.id)
    return { ok: true, sender, to: [{ id: kept.id, label: kept.label, down: kept.since }] };
  if (!holder) return refuse("no-live-holder", `nobody holds the label "${to}"; nothing was sent`);
  if (holder.state !== "live") {
    return refuse(
      "no-live-holder",
      `"${holder.label}" is ${holder.state} (${holder.reason}); nothing was sent`,
    );
  }
  // It can never be news: the sender already knows it.
  if (holder.id === sender.id)
    return refuse("to-self", `"${holder.label}" is you; nothing was sent`);
  return { ok: true, sender, to: [holder] };
}

/** Why a message body cannot be sent (empty, or over the limit), or undefined when it can. */
export function bodyRefusal(body: unknown): (Receipt & { ok: false }) | undefined {
  if (typeof body !== "string" || body.trim() === "")
    return refuse("empty-body", "the message is empty");
  const size = utf8Length(body);
  return size > MAX_BODY_BYTES ? refuse("body-too-large", bodyTooLarge(size)) : undefined;
}

/** Send one message to a label or to everyone. Nothing is written unless every check passes. */
export async function sendMail(team: Team, input: SendInput): Promise<Receipt> {
  const badBody = bodyRefusal(input.body);
  if (badBody) return badBody;
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
  if (input.shown !== undefined && !HOW.test(input.shown))
    return refuse("bad-input", `"${input.shown}" is not a door name`);
  const resolved = await addressed(team, input);
  if (!resolved.ok) return resolved;
  const now = team.clock();
  const id = input.id ?? uniqueName(now);
  const conversation = await replyConversation(team, resolved.sender.id, id, input.replyTo);
  const brake = input.turns ? await countTurn(team, conversation, input.turns) : undefined;
  const message: Message = {
    v: 1,
    id,
    from: resolved.sender,
    to: input.to,
    body: input.body,
    urgent: input.urgent === true,
    replyTo: input.replyTo,
    hops,
    sentAt: new Date(now).toISOString(),
    conversation,
    ...(brake ? { braked: true } : {}),
  };
  const text = `${JSON.stringify(message)}\n`;
  const delivered: Delivery[] = [];
  const refused: Undelivered[] = [];
  // Each recipient on its own: one mailbox that cannot be written does not stop the others.
  for (const member of resolved.to) {
    try {
      delivered.push(await deliver(team, member, message.id, text, input.shown !== undefined));
    } catch (error) {
      const cannot = `cannot write to the mailbox of "${member.label}": ${errorText(error)}`;
      refused.push({ id: member.id, label: member.label, reason: "unwritable", error: cannot });
    }
  }
  if (delivered.length === 0)
    return { ...refuse("unwritable", refused.map((each) => each.error).join("; ")), refused };
  // The receipt's first phase. The mail is sent whether or not its receipt can be written.
  for (const recipient of delivered) {
    if (recipient.duplicate) continue;
    await markPhase(team, "written", recipient.id, [message.id]);
    if (brake) await markWakeHeld(team, recipient.id, [message.id], "loop-brake", brake);
    if (input.shown === undefined) continue;
    await markPhase(team, "delivered", recipient.id, [message.id], input.shown);
    await markPhase(team, "acknowledged", recipient.id, [message.id]);
  }
  return {
    ok: true,
    id: message.id,
    to: delivered,
    refused,
    sentAt: message.sentAt,
    conversation,
    ...(brake ? { brake } : {}),
  };
}

const validGuest = (guest: unknown) =>
  guest === undefined || (typeof guest === "string" && /^[^\n]{1,64}$/.test(guest));

/** Who the send reaches: read by key where that can tell (one label), else from the whole team. */
async function addressed(
  team: Team,
  input: SendInput,
): Promise<ReturnType<typeof resolveRecipients>> {
  const byKey = validGuest(input.guest) ? await addressByKey(team, input) : undefined;
  if (byKey) return byKey;
  const read = await readTeam(team);
  if (!read.ok) return refuse("roster-unknown", read.error);
  if (!validGuest(input.guest))
    return refuse("bad-input", "a guest name is 1-64 characters on one line");
  const resolved = resolveRecipients(read.members, input);
  if (resolved.ok || resolved.reason !== "no-live-holder") return resolved;
  return resolveRecipients(read.members, input, await team.held().catch(() => []));
}

/** Deliver one message to one member (a half-written message is never seen in a mailbox). */
async function deliver(
  team: Team,
  member: Recipient,
  messageId: string,
  text: string,
  read: boolean,
): Promise<Delivery> {
  await team.store.mail.ensure(member.id);
  const done = await team.store.mail.deliver(member.id, messageId, text, { read });
  const down = "down" in member ? { down: member.down } : {};
  return { id: member.id, label: member.label, duplicate: done === "duplicate", ...down };
}
