// The team's mail tools for a model: team_roster, team_send, team_inbox. Text another process
// wrote is shown without control characters.
import {
  type ActivityState,
  activityNow,
  conversationTurns,
  errorLine,
  type MailReach,
  mailReach,
  recipientLine,
  replyHops,
  withSuggestion,
} from "@muster/core";
import type { Receipt, Roster } from "@muster/roster";
import { activityFacts, tellBrake } from "@muster/wiring";
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

/** The labels live members hold, for the suggestion a mistyped one gets. */
async function liveLabels(roster: Roster): Promise<string[]> {
  const read = await roster.read();
  return read.ok
    ? read.members.filter((member) => member.state === "live").map((member) => member.label)
    : [];
}

type SendArgs = { to: string | string[]; message: string; urgent?: boolean; reply_to?: string };

/** Send to each label (one message id across them), then say when each recipient will see it. */
async function sendEach(roster: Roster, team: Team, standpoint: Standpoint, args: SendArgs) {
  const labels = [...new Set(typeof args.to === "string" ? [args.to] : args.to)];
  const from = standpoint.kind === "member" ? standpoint.caller.id : team.guestId;
  const hops = replyHops(args.reply_to, (messageId) => team.hopsOf(from, messageId));
  const targets: SendTarget[] = [];
  let messageId: string | undefined;
  for (const label of labels) {
    const receipt: Receipt = await roster.send({
      from,
      to: label,
      body: args.message,
      urgent: args.urgent === true,
      replyTo: args.reply_to,
      hops,
      // One message id across labels: a member reached twice (two labels, or all) gets it once.
      id: messageId,
      guest: standpoint.kind === "guest" ? "guest (not on the team)" : undefined,
      turns: conversationTurns(),
    });
    // The first send past its conversation's budget tells the lead and the person, once.
    if (standpoint.kind === "member")
      await tellBrake(
        roster,
        receipt,
        { id: standpoint.caller.id, label: standpoint.label },
        { env: process.env },
      );
    // Per recipient: a mailbox that cannot be written is named; the others still get it.
    const missed = receipt.refused ?? [];
    for (const each of missed)
      targets.push({ label: each.label, ok: false, reason: each.reason, error: each.error });
    if (!receipt.ok) {
      if (missed.length === 0) {
        const failure: { error: string; fix?: string | undefined; suggestion?: string } =
          receipt.reason === "no-live-holder"
            ? withSuggestion(receipt, label, await liveLabels(roster))
            : receipt;
        targets.push({
          label,
          ok: false,
          reason: receipt.reason,
          error: errorLine(failure),
          ...(failure.suggestion === undefined ? {} : { suggestion: failure.suggestion }),
        });
      }
      continue;
    }
    messageId = receipt.id;
    for (const recipient of receipt.to)
      targets.push({
        label: recipient.label,
        ok: true,
        duplicate: recipient.duplicate,
        id: recipient.id,
      });
  }
  // When each recipient will see it: the core rule, from its listening choice on the roster.
  const read = messageId === undefined ? undefined : await roster.read();
  for (const target of targets) {
    if (!target.ok || messageId === undefined) continue;
    const member = read?.ok ? read.members.find((entry) => entry.id === target.id) : undefined;
    // A record gone (or a roster unreadable) since the send: when they see it is not known.
    if (!member) continue;
    target.reach = mailReach(
      { id: messageId, urgent: args.urgent === true, hops },
      member.watching,
      member,
    );
    target.activity = activityNow(activityFacts(member), Date.now()).state;
  }
  return { targets, messageId };
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

async function inboxResult(
  roster: Roster,
  team: Team,
  standpoint: Extract<Standpoint, { kind: "member" }>,
) {
  const inbox = await roster.receive(standpoint.caller.id);
  if (!inbox.ok)
    return result(
      `Your mailbox cannot be read: ${inbox.error}.`,
      { ok: false, reason: inbox.reason, messages: [] },
      true,
    );
  const ids = inbox.messages.map((message) => message.id);
  team.shown(standpoint.caller.id, inbox.messages);
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
      return inboxResult(roster, call.team, standpoint);
    },
  }),
];
