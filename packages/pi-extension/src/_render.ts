// What the extension shows: the footer, /team status, mail as pi presents it, and a send's result.
// Rendering only: whether this session is on the team is @muster/core's teamStatus.
import {
  MAIL_REACH_WORDS,
  type MailReach,
  mailMode,
  type TeamStatus,
  type Watching,
} from "@muster/core";
import { type Member, type Message, type Receipt, validateLabel } from "@muster/roster";

/** What the footer and /team status show, gathered by TeamSession.overview(). */
export type Overview = {
  status: TeamStatus;
  /** The user left with /team leave and has not joined again. */
  left: boolean;
  members: Member[] | { error: string } | undefined;
  unread: number;
  id: string;
};

export const joinedText = (label: string, watching: Watching) =>
  `On the team as ${label}; mail: ${mailMode(watching)}.`;

const offTeam = (left: boolean) =>
  left
    ? "You left the team; /team join [label] to come back."
    : "You are not on the team; /team join [label] to join.";

/** The footer: label, members live, unread mail; else why not, with the fix. */
export function footerText(view: Overview): string {
  const { status } = view;
  if (status.kind === "refused") return `muster: ${status.line}`;
  if (status.kind === "none") return `muster: ${view.left ? "off the team" : "not on the team"}`;
  const live = Array.isArray(view.members)
    ? view.members.filter((member) => member.state === "live").length
    : "?";
  return `⚑ ${status.label} · ${live} live${view.unread > 0 ? ` · ${view.unread} unread` : ""}`;
}

/** /team status and team_roster: this session's place, unread mail, and every member. */
export function statusText(view: Overview): string {
  const { status } = view;
  const me =
    status.kind === "member"
      ? `You are "${status.label}" (mail: ${mailMode(status.watching)}).`
      : status.kind === "refused"
        ? status.line
        : offTeam(view.left);
  if (view.members === undefined) return me;
  if (!Array.isArray(view.members))
    return `${me}\nThe roster cannot be read: ${view.members.error}`;
  // A record join would refuse was planted: counted, not shown.
  const members = view.members.filter((member) => validateLabel(member.label).ok);
  const planted = view.members.length - members.length;
  const rows = members.map(
    (member) =>
      `- ${member.label}: ${member.agent}, ${member.state}${member.state === "live" ? "" : ` (${member.why})`}${member.seat ? `, pane ${member.seat.pane}` : ""}${member.id === view.id ? " (you)" : ""}`,
  );
  const note =
    planted > 0 ? [`(${planted} record(s) with a label join would refuse: not shown)`] : [];
  return [me, `Unread: ${view.unread}.`, `Members (${members.length}):`, ...rows, ...note].join(
    "\n",
  );
}

/** A message as it enters the session. */
export function mailText(message: Message): string {
  const from = message.from.guest
    ? `${message.from.label}, who is not on the team`
    : `"${message.from.label}"`;
  const reply = message.from.guest
    ? "It cannot be answered by label."
    : `Reply with team_send to "${message.from.label}" (reply_to: "${message.id}").`;
  return `Team mail from ${from}${message.urgent ? " (urgent)" : ""}, to ${message.to === "all" ? "everyone" : "you"}:\n\n${message.body}\n\n${reply}`;
}

/** /team inbox and team_inbox. */
export const listMail = (messages: Message[]) =>
  messages.length === 0
    ? "No new mail."
    : messages
        .map((message) => `— ${message.from.label} (${message.id}):\n${message.body}`)
        .join("\n\n");

/** What a send did: where it went, and whether it went as a guest and why. */
export type Sent = {
  receipt: Receipt | undefined;
  guest?: string | undefined;
  error?: string;
  /** How each recipient (by id) will see it: now, at its next turn, or only from its inbox. */
  reach?: Record<string, MailReach> | undefined;
};

export function sentText(sent: Sent, style: "command" | "tool"): string {
  const { receipt, guest } = sent;
  if (!receipt?.ok)
    return `${style === "tool" ? "Not sent" : "muster: not sent"}: ${receipt?.error ?? sent.error}`;
  const to = receipt.to.map((recipient) => recipient.label).join(", ");
  const id = style === "tool" ? ` (id ${receipt.id})` : "";
  // A recipient whose mailbox could not be written is named: the others got the message.
  const missed = receipt.refused
    .map((each) => `\nNot delivered to ${each.label}: ${each.error}`)
    .join("");
  if (guest) return `Sent${id} to ${to} as a guest (not on the team): ${guest}${missed}`;
  // The model is told when each recipient will see it; the user's notice stays one short line.
  const reach = sent.reach;
  if (style === "command" || !reach) return `Sent${id} to ${to}.${missed}`;
  const how = receipt.to
    .map((recipient) => {
      const word = reach[recipient.id];
      return word ? `${recipient.label} ${MAIL_REACH_WORDS[word]}` : undefined;
    })
    .filter((line) => line !== undefined);
  return `Sent${id} to ${to}.${how.length > 0 ? ` ${how.join("; ")}.` : ""}${missed}`;
}
