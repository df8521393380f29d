// What the extension shows: the footer, /team status, mail as pi presents it, and a send's result.
// Rendering only: whether this session is on the team is @muster/core's teamStatus.
import {
  type ActivityState,
  type ActivityView,
  errorLine,
  type MailReach,
  mailListForAgent,
  mailMode,
  recipientLine,
  type SenderRecord,
  senderStanding,
  type TeamStatus,
  type Watching,
} from "@muster/core";
import {
  type Delivery,
  type Member,
  type Message,
  plantedRecord,
  type Undelivered,
} from "@muster/roster";
import { memberActivity } from "@muster/wiring";

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

/** What a member's agent is doing now: the facts every door reads (the wiring's one view). */
const activityOf = (member: Member, now: number): ActivityView => memberActivity(member, now);

/** A duration in the largest whole unit: 40s, 3m, 2h. */
const lasted = (ms: number) =>
  ms < 60_000
    ? `${Math.floor(ms / 1000)}s`
    : ms < 3_600_000
      ? `${Math.floor(ms / 60_000)}m`
      : `${Math.floor(ms / 3_600_000)}h`;

/** The footer: label, members live, who needs the person, unread mail; else why not, with the fix. */
export function footerText(view: Overview, now = Date.now()): string {
  const { status } = view;
  if (status.kind === "refused") return `muster: ${status.line}`;
  if (status.kind === "none") return `muster: ${view.left ? "off the team" : "not on the team"}`;
  const members = Array.isArray(view.members) ? view.members : undefined;
  const live = members ? members.filter((member) => member.state === "live").length : "?";
  const waiting = (members ?? []).filter(
    (member) =>
      member.id !== view.id &&
      !plantedRecord(member) &&
      activityOf(member, now).state === "needs-you",
  );
  const needs =
    waiting.length === 0
      ? ""
      : ` · ❗ ${waiting.map((member) => member.label).join(", ")} ${waiting.length === 1 ? "needs" : "need"} you`;
  return `⚑ ${status.label} · ${live} live${needs}${view.unread > 0 ? ` · ${view.unread} unread` : ""}`;
}

/** A live member's activity in a few words: `working 3m`, `needs-you 20s`, `unknown`. */
function doing(member: Member, now: number): string {
  const activity = activityOf(member, now);
  const how = activity.since === undefined ? "" : ` ${lasted(Math.max(0, now - activity.since))}`;
  const state = activity.trouble ? `trouble: ${activity.trouble.kind}` : activity.state;
  return `${state}${how}${activity.reason === "person" ? " (a person)" : ""}`;
}

/** /team status and team_roster: this session's place, unread mail, and every member. */
export function statusText(view: Overview, now = Date.now()): string {
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
  const members = view.members.filter((member) => !plantedRecord(member));
  const planted = view.members.length - members.length;
  const rows = members.map(
    (member) =>
      `- ${member.label}: ${member.agent}, ${member.state === "live" ? doing(member, now) : `${member.state} (${member.reason})`}${member.seat ? `, pane ${member.seat.pane}` : ""}${member.id === view.id ? " (you)" : ""}`,
  );
  const note =
    planted > 0 ? [`(${planted} record(s) with a label or id join would refuse: not shown)`] : [];
  return [me, `Unread: ${view.unread}.`, `Members (${members.length}):`, ...rows, ...note].join(
    "\n",
  );
}

/** /team inbox and team_inbox: core's one format, each sender judged against the team's members. */
export const listMail = (
  messages: readonly Message[],
  members: readonly SenderRecord[] | undefined,
) =>
  mailListForAgent(
    messages.map((message) => ({ message, standing: senderStanding(message.from, members) })),
  );

/** What a send did: where it went, and whether it went as a guest and why. */
/** What a send answered: who it reached, or why nothing was sent (the wiring's send outcome). */
export type SentReceipt =
  | { ok: true; id: string; to: Delivery[]; refused: Undelivered[] }
  | { ok: false; reason: string; error: string; fix?: string | undefined; suggestion?: string };

export type Sent = {
  receipt: SentReceipt | undefined;
  guest?: string | undefined;
  error?: string;
  /** How each recipient (by id) will see it: now, at its next turn, or only from its inbox. */
  reach?: Record<string, MailReach> | undefined;
  /** What each recipient (by id) is doing now, where its record was read. */
  activity?: Record<string, ActivityState> | undefined;
};

export function sentText(sent: Sent, style: "command" | "tool"): string {
  const { receipt, guest } = sent;
  if (!receipt?.ok)
    return `${style === "tool" ? "Not sent" : "muster: not sent"}: ${receipt ? errorLine(receipt) : sent.error}`;
  const to = receipt.to.map((recipient) => recipient.label).join(", ");
  const id = style === "tool" ? ` (id ${receipt.id})` : "";
  // A recipient whose mailbox could not be written is named: the others got the message.
  const missed = receipt.refused
    .map((each) => `\nNot delivered to ${each.label}: ${each.error}`)
    .join("");
  if (guest) return `Sent${id} to ${to} as a guest (not on the team): ${guest}${missed}`;
  // Each recipient: what it is doing and so when it will see it (core's recipientLine), on one line.
  const reach = sent.reach;
  if (!reach) return `Sent${id} to ${to}.${missed}`;
  const how = receipt.to
    .map((recipient) => {
      const word = reach[recipient.id];
      const state = sent.activity?.[recipient.id] ?? "unknown";
      return word ? recipientLine(recipient.label, word, state) : undefined;
    })
    .filter((line) => line !== undefined);
  return `Sent${id} to ${to}.${how.length > 0 ? ` ${how.join("; ")}.` : ""}${missed}`;
}
