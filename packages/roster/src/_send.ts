// Sending: a message to a label or to everyone, checked whole before anything is written, then
// delivered into each recipient's maildir (written under tmp/, renamed into new/).
import {
  ensureFolders,
  errorText,
  FILE_MODE,
  readIfPresent,
  tempBeside,
  uniqueName,
} from "./_fs.js";
import { type Member, readTeam } from "./_members.js";
import type { Message } from "./_message.js";
import { markPhase } from "./_receipts.js";
import type { Team } from "./_team.js";
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

/** A recipient the message was written to (`duplicate`: it was there already, a retried send). */
export type Delivery = { id: string; label: string; duplicate: boolean };
/** A recipient whose mailbox could not be written: the others still got the message. */
export type Undelivered = { id: string; label: string; reason: "unwritable"; error: string };

export type Receipt =
  | { ok: true; id: string; to: Delivery[]; refused: Undelivered[]; sentAt: string }
  | { ok: false; reason: SendRefusal; error: string; refused?: Undelivered[] | undefined };

const refuse = (reason: SendRefusal, error: string) => ({ ok: false as const, reason, error });

/**
 * Who a send from `from` to `to` reaches, or why nobody: the one address check, which `send`
 * makes and a composer sending to several labels makes first for each (so a bad one sends nothing).
 */
export function resolveRecipients(
  members: readonly Member[],
  input: Pick<SendInput, "from" | "to" | "guest">,
): { ok: true; sender: Message["from"]; to: Member[] } | (Receipt & { ok: false }) {
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
    return { ok: true, sender, to: everyone };
  }
  const holder = members.find(
    (candidate) => candidate.holdsLabel && labelKey(candidate.label) === labelKey(to),
  );
  if (!holder)
    return refuse(
      "no-live-holder",
      `nobody holds the label "${to}"; nothing was sent; see who is on the team with muster roster`,
    );
  if (holder.state !== "live") {
    return refuse(
      "no-live-holder",
      `"${holder.label}" is ${holder.state} (${holder.why}); nothing was sent`,
    );
  }
  // It can never be news: the sender already knows it.
  if (holder.id === sender.id)
    return refuse(
      "to-self",
      `"${holder.label}" is you; nothing was sent; send it to another label, or to all`,
    );
  return { ok: true, sender, to: [holder] };
}

/** Send one message to a label or to everyone. Nothing is written unless every check passes. */
export async function sendMail(team: Team, input: SendInput): Promise<Receipt> {
  if (typeof input.body !== "string" || input.body.trim() === "")
    return refuse("empty-body", "the message is empty");
  const size = utf8Length(input.body);
  if (size > MAX_BODY_BYTES) {
    return refuse("body-too-large", bodyTooLarge(size));
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
  const read = await readTeam(team);
  if (!read.ok) return refuse("roster-unknown", read.error);
  if (
    input.guest !== undefined &&
    (typeof input.guest !== "string" || !/^[^\n]{1,64}$/.test(input.guest))
  ) {
    return refuse("bad-input", "a guest name is 1-64 characters on one line");
  }
  const resolved = resolveRecipients(read.members, input);
  if (!resolved.ok) return resolved;
  const now = team.clock();
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
  const delivered: Delivery[] = [];
  const refused: Undelivered[] = [];
  // Each recipient on its own: one mailbox that cannot be written does not stop the others.
  for (const member of resolved.to) {
    try {
      delivered.push(await deliver(team, member, message.id, text));
    } catch (error) {
      const why = `cannot write to the mailbox of "${member.label}": ${errorText(error)}`;
      refused.push({ id: member.id, label: member.label, reason: "unwritable", error: why });
    }
  }
  if (delivered.length === 0)
    return { ...refuse("unwritable", refused.map((each) => each.error).join("; ")), refused };
  // The receipt's first phase. The mail is sent whether or not its receipt can be written.
  for (const recipient of delivered)
    if (!recipient.duplicate) await markPhase(team, "written", recipient.id, [message.id]);
  return { ok: true, id: message.id, to: delivered, refused, sentAt: message.sentAt };
}

/** Deliver one message to one member (maildir: a half-written file only ever sits in tmp/). */
async function deliver(
  team: Team,
  member: Member,
  messageId: string,
  text: string,
): Promise<Delivery> {
  const name = `${messageId}.json`;
  const inbox = team.paths.inboxFolder(member.id);
  await ensureFolders(team.fs, [
    team.paths.mailbox(member.id),
    team.paths.mailTmp(member.id),
    inbox,
    team.paths.readFolder(member.id),
  ]);
  const seen =
    (await readIfPresent(team.fs, `${inbox}/${name}`)) ??
    (await readIfPresent(team.fs, `${team.paths.readFolder(member.id)}/${name}`));
  if (seen !== undefined) return { id: member.id, label: member.label, duplicate: true };
  // An unpredictable temp name, created exclusively: a planted symlink is never followed.
  const temp = tempBeside(`${team.paths.mailTmp(member.id)}/${name}`, team.clock());
  await team.fs.writeFile(temp, text, FILE_MODE);
  await team.fs.rename(temp, `${inbox}/${name}`);
  return { id: member.id, label: member.label, duplicate: false };
}
