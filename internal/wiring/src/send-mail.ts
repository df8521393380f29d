// One send, as every door makes it (the CLI's `send`, MCP's and pi's `team_send`): the body and
// every address checked before anything is written (core's `planSend`), each address sent with
// one message id, the loop brake told once, then each recipient's reach and activity from the
// facts every door reads (`memberActivity`). Sequences only: core decides, the roster writes, the
// door parses and renders. A refusal is a value, never a throw.
import {
  type ActivityState,
  conversationTurns,
  type MailReach,
  mailReach,
  planSend,
  replyHops,
  type SendPlan,
  type SendPlanRefusal,
} from "@muster/core";
import type { Delivery, Member, Roster, SendRefusal, Undelivered } from "@muster/roster";
import { bodyRefusal } from "@muster/roster";
import { memberActivity } from "./activity.ts";
import { tellBrake } from "./brake.ts";

export type SendRequest = {
  /** The labels as the door parsed them (core's `sendLabels`); `all` is every live member. */
  labels: readonly string[];
  /** The sender's session id; with `guest`, a session off the team sending under that name. */
  from: string;
  guest?: string | undefined;
  body: string;
  urgent: boolean;
  /** The message answered: the reply's hops are one more than its own (found here, for every door). */
  replyTo?: string | undefined;
  /** Whose environment the brake's alert and Claude Code's registry are read from. */
  env?: NodeJS.ProcessEnv | undefined;
  now?: (() => number) | undefined;
  /**
   * The team as the door read it just now (its own read, to find the sender): the send addresses
   * and describes by it rather than reading the whole team again. Absent: read once here.
   */
  members?: readonly Member[] | undefined;
};

/** A recipient the message was written to, with when it will see it and what it is doing. */
export type SentTo = Delivery & { reach?: MailReach; activity?: ActivityState };

export type SendOutcome =
  | {
      ok: true;
      id: string;
      sentAt: string;
      recipients: SentTo[];
      /** Recipients whose mailbox could not be written: the others got it. */
      refused: Undelivered[];
    }
  | {
      ok: false;
      reason: SendRefusal | SendPlanRefusal;
      error: string;
      fix: string;
      /** The label refused, as typed; with the live label nearest it where one is near. */
      label?: string;
      suggestion?: string;
      refused?: Undelivered[];
      /** Recipients written before a later address failed (a roster that changed mid-send). */
      sent?: SentTo[];
    };

/** A send's refusal, before anything is written. */
type SendCheckRefusal = Extract<SendOutcome, { ok: false }>;

/**
 * The checks a send makes before anything is written, for a door that asks first (the CLI's
 * `send`, before it joins its shell): the body, then every address (core's `planSend`, all or
 * nothing), with the labels kept for declared members that are down asked only when one is not
 * held live.
 */
export async function checkSend(
  roster: Roster,
  request: Pick<SendRequest, "labels" | "from" | "guest" | "body" | "members">,
): Promise<{ ok: true; plan: Extract<SendPlan, { ok: true }> } | SendCheckRefusal> {
  const badBody = bodyRefusal(request.body);
  if (badBody) return badBody;
  const read = request.members
    ? { ok: true as const, members: request.members }
    : await roster.read();
  if (!read.ok)
    return {
      ok: false,
      reason: "roster-unknown",
      error: read.error,
      fix: "check the team folder can be read",
    };
  const sender = { id: request.from, guest: request.guest };
  let plan = planSend(request.labels, read.members, sender);
  if (!plan.ok && plan.reason === "no-live-holder") {
    const kept = await roster.held().catch(() => []);
    if (kept.length > 0) plan = planSend(request.labels, read.members, sender, kept);
  }
  return plan.ok ? { ok: true, plan } : plan;
}

/** Send one message to every label, all or nothing, and say how each recipient will see it. */
export async function sendMail(roster: Roster, request: SendRequest): Promise<SendOutcome> {
  // The team read once (or as the door read it): for the addresses, then for how each will see it.
  const read = request.members ? undefined : await roster.read();
  const members = request.members ?? (read?.ok ? read.members : undefined);
  const checked = await checkSend(roster, members ? { ...request, members } : request);
  if (!checked.ok) return checked;
  const plan = checked.plan;
  const hops = await hopsOf(roster, request);
  let id: string | undefined;
  let sentAt = "";
  const sent: SentTo[] = [];
  const refused: Undelivered[] = [];
  for (const to of plan.addresses) {
    const receipt = await roster.send({
      from: request.from,
      to,
      body: request.body,
      urgent: request.urgent,
      replyTo: request.replyTo,
      hops,
      // One message id across addresses: a member reached twice gets it once.
      id,
      guest: plan.sender.guest ? request.guest : undefined,
      turns: conversationTurns(),
    });
    // The first send past its conversation's budget tells the lead and the person, once.
    if (!plan.sender.guest)
      await tellBrake(roster, receipt, plan.sender, { env: request.env ?? process.env });
    for (const each of receipt.refused ?? [])
      if (!refused.some((earlier) => earlier.id === each.id)) refused.push(each);
    if (!receipt.ok && receipt.refused?.length) continue;
    if (!receipt.ok) return { ...receipt, label: to, sent };
    id = receipt.id;
    sentAt = receipt.sentAt;
    for (const recipient of receipt.to)
      if (!sent.some((earlier) => earlier.id === recipient.id)) sent.push(recipient);
  }
  if (id === undefined)
    return {
      ok: false,
      reason: "unwritable",
      error: refused.map((each) => each.error).join("; "),
      fix: "check the team folder is writable (space, permissions)",
      refused,
    };
  const recipients = described(members ?? [], sent, { ...request, id, hops });
  return { ok: true, id, sentAt, recipients, refused };
}

/**
 * A reply's hop count (core's `replyHops`): one more than the message it answers, as the sender
 * received it, so a thread bounced between agents stops waking them. The one way every door finds it.
 */
async function hopsOf(roster: Roster, request: Pick<SendRequest, "from" | "replyTo">) {
  const answered = request.replyTo
    ? await roster.received(request.from, request.replyTo)
    : undefined;
  return replyHops(request.replyTo, () => answered?.hops);
}

/** Each recipient's reach (core's rule, from its listening choice) and activity, as the send read the team. */
function described(
  members: readonly Member[],
  sent: SentTo[],
  message: SendRequest & { id: string; hops: number },
): SentTo[] {
  const now = (message.now ?? Date.now)();
  return sent.map((recipient) => {
    const member: Member | undefined = members.find((entry) => entry.id === recipient.id);
    // A record gone (or a roster unreadable) since the send: when they see it is not known.
    if (!member) return recipient;
    return {
      ...recipient,
      reach: mailReach(
        { id: message.id, urgent: message.urgent, hops: message.hops },
        member.watching,
        member,
      ),
      activity: memberActivity(member, now, message.env).state,
    };
  });
}
