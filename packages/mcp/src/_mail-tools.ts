// The team's mail tools for a model: team_roster, team_send, team_inbox. Text another process
// wrote is shown without control characters.
import {
  type ActivityState,
  errorLine,
  type MailReach,
  recipientLine,
  sendLabels,
} from "@muster/core";
import type { Roster } from "@muster/roster";
import { sendMail } from "@muster/wiring";
import * as z from "zod";
import { clean, formatMail } from "./_mail-text.js";
import { result, whoFacts, whoLine } from "./_result.js";
import { rosterRows, type Standpoint, type Team } from "./_team.js";
import { READ, tool } from "./_tool.js";

type SendTarget = {
  label: string;
  ok: boolean;
  reason?: string;
  error?: string;
  /** The live label nearest one nobody holds (core's rule, as every door says it). */
  suggestion?: string;
  duplicate?: boolean;
  /** The member id the label led to. */
  id?: string;
  /** When the recipient will see it, by the core wake policy and its listening choice. */
  reach?: MailReach;
  /** What the recipient was doing as it was sent (core's activity now). */
  activity?: ActivityState;
};

type SendArgs = { to: string | string[]; message: string; urgent?: boolean; reply_to?: string };

/** Send through the wiring's one send (all labels or none), as one target per recipient. */
async function sendEach(roster: Roster, team: Team, standpoint: Standpoint, args: SendArgs) {
  const from = standpoint.kind === "member" ? standpoint.caller.id : team.guestId;
  const sent = await sendMail(roster, {
    labels: sendLabels(args.to),
    from,
    guest: standpoint.kind === "guest" ? "guest (not on the team)" : undefined,
    body: args.message,
    urgent: args.urgent === true,
    replyTo: args.reply_to,
  });
  // Per recipient: a mailbox that cannot be written is named; the others still get it.
  const missed: SendTarget[] = (sent.refused ?? []).map((each) => ({
    label: each.label,
    ok: false,
    reason: each.reason,
    error: each.error,
  }));
  if (!sent.ok) {
    if (missed.length > 0) return { targets: missed, messageId: undefined };
    const { label, suggestion } = sent;
    const target: SendTarget = {
      label: label ?? sendLabels(args.to).join(","),
      ok: false,
      reason: sent.reason,
      error: errorLine(sent),
      ...(suggestion === undefined ? {} : { suggestion }),
    };
    return { targets: [target], messageId: undefined };
  }
  const targets: SendTarget[] = sent.recipients.map((recipient) => ({
    label: recipient.label,
    ok: true,
    duplicate: recipient.duplicate,
    id: recipient.id,
    ...(recipient.reach === undefined ? {} : { reach: recipient.reach }),
    ...(recipient.activity === undefined ? {} : { activity: recipient.activity }),
  }));
  return { targets: [...missed, ...targets], messageId: sent.id };
}

function sentResult(standpoint: Standpoint, targets: SendTarget[], messageId?: string) {
  const sent = targets.filter((target) => target.ok && !target.duplicate);
  const refused = targets.filter((target) => !target.ok);
  const lines = [
    ...(standpoint.kind === "guest" ? [whoLine(standpoint)] : []),
    sent.length > 0 ? `Sent ${messageId}:` : "Nothing was sent.",
    ...sent.map(
      (target) =>
        `  ${target.reach ? recipientLine(clean(target.label), target.reach, target.activity ?? "unknown") : `${clean(target.label)}: sent`}`,
    ),
    ...refused.map((target) => `Not sent to ${clean(target.label)}: ${clean(target.error ?? "")}`),
  ];
  return result(
    lines.join("\n"),
    {
      ok: refused.length === 0 && sent.length > 0,
      id: messageId ?? null,
      recipients: targets,
      ...whoFacts(standpoint),
    },
    sent.length === 0,
  );
}

async function inboxResult(roster: Roster, standpoint: Extract<Standpoint, { kind: "member" }>) {
  const inbox = await roster.receive(standpoint.caller.id);
  if (!inbox.ok)
    return result(
      `Your mailbox cannot be read: ${inbox.error}.`,
      { ok: false, reason: inbox.reason, messages: [] },
      true,
    );
  const ids = inbox.messages.map((message) => message.id);
  if (ids.length > 0) {
    // The result is what the model is shown: delivered, then read.
    await roster.markDelivered(standpoint.caller.id, ids, "mcp");
    await roster.ack(standpoint.caller.id, ids);
  }
  const read = inbox.messages.length > 0 ? await roster.read() : undefined;
  return result(formatMail(inbox.messages, read?.ok ? read.members : undefined), {
    ok: true,
    messages: inbox.messages,
    ...whoFacts(standpoint),
  });
}

export const MAIL_TOOLS = [
  tool({
    name: "team_roster",
    title: "Team roster",
    description:
      "List the coding agents working on this repository as a team (muster): each member's label, agent, state (live, gone) and tmux pane, and which one is you. Call it before team_send to find the right label. Calling any team tool puts you on the team.",
    input: {},
    annotations: READ,
    serves: { roster: true },
    async run(_args, call) {
      const { roster, read: before, standpoint } = await call.begin();
      // A caller that joined on this very call is on the roster now: read it again to show it.
      const read = standpoint.kind === "member" && standpoint.joined ? await roster.read() : before;
      if (!read.ok)
        return result(
          `The team roster cannot be read: ${read.error}.`,
          { ok: false, reason: "roster-unknown" },
          true,
        );
      const you = standpoint.kind === "member" ? standpoint.caller.id : undefined;
      const members = rosterRows(read.members, you);
      const lines = members.map(
        (member) =>
          `- ${clean(member.label)} (${clean(member.agent)}, ${member.state === "live" ? member.activity : member.state}${member.pane ? `, pane ${member.pane}` : ""})${member.you ? " ← you" : ""}`,
      );
      const text = [
        whoLine(standpoint),
        members.length === 0 ? "Nobody is on the team." : `Members:\n${lines.join("\n")}`,
      ].join("\n");
      return result(text, { ok: true, ...whoFacts(standpoint), members });
    },
  }),
  tool({
    name: "team_send",
    title: "Send team mail",
    description:
      'Send a message to other coding agents on this repository\'s team: to one label (see team_roster), to several labels, or to "all". Use it to hand off work, ask a question, or report something a peer is waiting for. Keep it short and self-contained, with the paths and ids the reader needs; do not send a message only to acknowledge one.',
    input: {
      to: z
        .union([z.string(), z.array(z.string()).min(1).max(32)])
        .describe(
          'A label such as "reviewer", a list of labels, or "all" for every live member but you',
        ),
      message: z.string().describe("The message: what you need or what you did"),
      urgent: z
        .boolean()
        .optional()
        .describe("true only if the recipients should stop what they are doing now"),
      reply_to: z.string().optional().describe("The id of the message you are answering, if any"),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    serves: { send: true },
    async run(args, call) {
      const { roster, standpoint } = await call.begin();
      const { targets, messageId } = await sendEach(roster, call.team, standpoint, args);
      return sentResult(standpoint, targets, messageId);
    },
  }),
  tool({
    name: "team_inbox",
    title: "Read team mail",
    description:
      "Read your new team mail, oldest first, and mark it read. Call it when you are told team mail is waiting, and before you finish a task others may be writing to you about. Answer with team_send and reply_to when a message asks for something.",
    input: {},
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
    serves: { inbox: true },
    async run(_args, call) {
      const { roster, standpoint } = await call.begin();
      if (standpoint.kind === "guest")
        return result(
          `${whoLine(standpoint)} A guest has no inbox.`,
          { ok: false, reason: "guest", messages: [], ...whoFacts(standpoint) },
          true,
        );
      return inboxResult(roster, standpoint);
    },
  }),
];
