// `muster send`: mail from the member this shell belongs to, or --from. Parses, asks the wiring's
// one `sendMail` (core plans the addresses, all or nothing, as every door does), renders; `--wait`
// follows the receipts. A refusal comes back as a value and is thrown only here, at the edge.
import {
  type ActivityState,
  DOWN_WORDS,
  errorLine,
  heldWords,
  holderOf,
  type MailReach,
  MEMBER_USE,
  PHASE_WORDS,
  printable,
  recipientLine,
  sendLabels,
  type WaitGoal,
  type WaitReport,
  withSuggestion,
} from "@muster/core";
import {
  bodyTooLarge,
  MAX_BODY_BYTES,
  type Member,
  SEND_FIXES,
  type Undelivered,
} from "@muster/roster";
import { checkSend, type SendOutcome, sendMail } from "@muster/wiring";
import { actAsCaller } from "./_acting.js";
import { type Context, Refusal, refused, UsageError, unreadable } from "./_context.js";
import { type Caller, notMember } from "./_identity.js";
import { actingCaller } from "./_membership.js";
import { waitForReceipts } from "./_wait.js";

/**
 * The message on stdin, without one final newline. Reading stops once there is more than the
 * roster's limit and that newline: the rest is never read (an endless producer is refused at once).
 */
async function readBody(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.from(chunk as Buffer);
    chunks.push(bytes);
    size += bytes.length;
    // Leaving the loop destroys the stream: nothing more is read.
    if (size > MAX_BODY_BYTES + 1)
      throw new Refusal(
        "body-too-large",
        errorLine({
          error: bodyTooLarge(MAX_BODY_BYTES, true),
          fix: SEND_FIXES["body-too-large"],
        }),
      );
  }
  return Buffer.concat(chunks, size).toString("utf8").replace(/\n$/, "");
}

export type SendOptions = {
  to: string;
  words: string[];
  from?: string | undefined;
  id?: string | undefined;
  urgent: boolean;
  replyTo?: string | undefined;
  /** Wait until every recipient reached the goal, at most `timeoutMs`. */
  wait?: { goal: WaitGoal; timeoutMs: number } | undefined;
};

/** The not-member refusal for a sender: the shell's agent, an --id, or a --from label. */
function notSender(
  caller: Caller | undefined,
  label: string | undefined,
  members: readonly Member[] = [],
): Refusal {
  if (caller) return notMember(caller);
  const live = members.filter((member) => member.state === "live").map((member) => member.label);
  return new Refusal(
    "not-member",
    withSuggestion(
      {
        error: `no live member holds the label "${label}"`,
        fix: "join first with muster join <label>, or pick one from muster roster",
      },
      label ?? "",
      live,
    ),
    { label },
  );
}

export async function sendCommand(context: Context, options: SendOptions) {
  const labels = sendLabels(options.to);
  if (labels.some((label) => label === ""))
    throw new UsageError(`"${options.to}" has an empty label; separate labels with commas: a,b`);
  const fromStdin =
    options.words.length === 0 || (options.words.length === 1 && options.words[0] === "-");
  if (fromStdin && context.io.stdin.isTTY) {
    throw new UsageError("no message: pass it after the label, or pipe it on stdin");
  }
  const body = fromStdin ? await readBody(context.io.stdin) : options.words.join(" ");
  const roster = await context.roster();
  if (options.from !== undefined) {
    const read = await roster.read();
    if (!read.ok) throw unreadable("roster-unknown", read);
    const sender = holderOf(read.members, options.from);
    if (sender?.state !== "live") throw notSender(undefined, options.from, read.members);
    const sent = await deliver(context, options, {
      body,
      labels,
      sender: sender.id,
      members: read.members,
    });
    return shown(context, options, sent, { caller: undefined, joined: null });
  }
  // The shell's member, joined first when it is not on the team: only once the message and
  // every address passed the same checks the send makes, so a typo leaves nobody behind.
  const caller = await actingCaller(context, options.id);
  const acted = await actAsCaller(context, caller, MEMBER_USE.send!, {
    purpose: `to send mail to ${options.to}`,
    // The wiring's own checks, as its send will make them (the kept labels of down members too).
    check: async (wouldBe) => {
      const checked = await checkSend(roster, {
        labels,
        from: wouldBe.id,
        guest: wouldBe.label,
        body,
      });
      return checked.ok ? undefined : checked;
    },
    act: (member, _joined, members) =>
      deliver(context, options, { body, labels, sender: member.id, members }),
  });
  // A refusal (not a member, a check's, a join's) goes back to the edge as a value.
  if (!acted.ok) return acted;
  return shown(context, options, acted.result, { caller, joined: acted.joined });
}

type Delivery = {
  body: string;
  labels: string[];
  sender: string;
  /** The team as this command read it, when still current: the send reads it no more. */
  members?: readonly Member[] | undefined;
};

/** Send to every label as `sender`: the wiring's one send; a refusal is returned, not thrown. */
async function deliver(context: Context, options: SendOptions, delivery: Delivery) {
  const roster = await context.roster();
  // A reply's hops (one more than the message answered) are the send's to find.
  return sendMail(roster, {
    labels: delivery.labels,
    from: delivery.sender,
    body: delivery.body,
    urgent: options.urgent,
    replyTo: options.replyTo,
    env: context.io.env,
    members: delivery.members,
  });
}

/** The outcome of a send, said; a refusal (the wiring's, or a wait not met) is returned as a value. */
async function shown(
  context: Context,
  options: SendOptions,
  sent: SendOutcome,
  who: { caller: Caller | undefined; joined: string | null },
) {
  if (!sent.ok) {
    if (sent.reason === "not-member") return notSender(who.caller, options.from).refused;
    if (sent.reason === "unwritable")
      return refused("unwritable", errorLine(sent), { refused: sent.refused ?? [] });
    const { ok: _ok, reason, error: _error, fix: _fix, ...details } = sent;
    return refused(reason, sent, details);
  }
  // Core's word, `reach`, as every door says it; `push` is its older name, kept for scripts.
  const report = sent.recipients.map((recipient) => {
    const reach = recipient.reach ?? "not-pushed";
    return { ...recipient, reach, push: reach, activity: recipient.activity ?? "unknown" };
  });
  const roster = await context.roster();
  const waited = options.wait
    ? await waitForReceipts(roster, sent.id, report, options.wait.goal, options.wait.timeoutMs)
    : undefined;
  const document = {
    id: sent.id,
    joined: who.joined,
    to: report.map((recipient) => recipient.label),
    recipients: report,
    refused: sent.refused,
    replyTo: options.replyTo ?? null,
    sentAt: sent.sentAt,
    ...(waited ? { wait: { ...waited, timeoutMs: options.wait!.timeoutMs } } : {}),
  };
  if (!waited || waited.done) {
    if (context.json) return context.emit(document);
    showSent(context, document, waited);
    return;
  }
  if (!context.json) showSent(context, document, waited);
  return refused("not-reached", notReachedLine(waited, options.wait!.timeoutMs), document);
}

/** The recipients a wait did not see reach its goal, in one line with what to do. */
function notReachedLine(waited: WaitReport, timeoutMs: number): string {
  const missing = waited.recipients.filter((recipient) => !recipient.met);
  const names = missing.map((recipient) => recipient.label);
  const who =
    names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  const plural = names.length > 1;
  const what =
    waited.goal === "delivered"
      ? `${plural ? "were" : "was"} not shown the message`
      : `did not mark the message read`;
  return `${who} ${what} within ${timeoutMs / 1000}s; it waits in their inbox (muster status shows how long)`;
}

function showSent(
  context: Context,
  document: {
    id: string | undefined;
    replyTo: string | null;
    recipients: {
      id: string;
      label: string;
      duplicate: boolean;
      down?: string | undefined;
      reach: MailReach;
      activity: ActivityState;
    }[];
    refused: Undelivered[];
  },
  waited: WaitReport | undefined,
) {
  const shown = waited
    ? document.recipients
    : document.recipients.filter((recipient) => !recipient.duplicate);
  if (shown.length === 0 && document.refused.length === 0)
    return context.out(`Sent ${document.id}: nobody new (already delivered).`);
  const phase = (recipientId: string) => {
    const row = waited?.recipients.find((entry) => entry.id === recipientId);
    if (!row) return "";
    const failed = row.wakeFailed ? `; its wake failed: ${row.wakeFailed}` : "";
    const held = row.wakeHeld ? `; its wake is ${heldWords(row.wakeHeld)}` : "";
    return `; now ${PHASE_WORDS[row.reached]}${row.how ? ` (${row.how})` : ""}${failed}${held}`;
  };
  context.out(
    printable(
      [
        `Sent ${document.id}${document.replyTo ? ` in reply to ${document.replyTo}` : ""}:`,
        ...shown.map((recipient) =>
          recipient.down
            ? `  ${recipient.label} ${DOWN_WORDS}`
            : `  ${recipientLine(recipient.label, recipient.reach, recipient.activity)}${phase(recipient.id)}`,
        ),
        ...document.refused.map((each) => `  ${each.label}: not delivered (${each.error})`),
      ].join("\n"),
      { lines: true },
    ),
  );
}
