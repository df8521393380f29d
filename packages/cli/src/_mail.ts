// `muster send` and `muster inbox`: mail between members. The sender is the member this shell
// belongs to, or --from; `inbox --follow` watches the mailbox (with a slow sweep as a fallback).
import {
  type ActivityState,
  conversationTurns,
  errorLine,
  heldWords,
  holderOf,
  type MailReach,
  MEMBER_USE,
  mailReach,
  PHASE_WORDS,
  printable,
  recipientLine,
  replyHops,
  type WaitGoal,
  type WaitReport,
  withSuggestion,
} from "@muster/core";
import {
  bodyTooLarge,
  MAX_BODY_BYTES,
  type Message,
  type Receipt,
  resolveRecipients,
  SEND_FIXES,
  type Undelivered,
} from "@muster/roster";
import { tellBrake, watchInbox } from "@muster/wiring";
import { activityView } from "./_activity-view.js";
import { type Context, Refusal, UsageError, unreadable } from "./_context.js";
import { printMail, showHistory } from "./_history.js";
import { type Caller, notMember, resolveCaller } from "./_identity.js";
import { actingCaller, asCallerMember, onTeam } from "./_membership.js";
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
function notSender(caller: Caller | undefined, label: string | undefined): Refusal {
  if (caller) return notMember(caller);
  return new Refusal(
    "not-member",
    `no live member holds the label "${label}"; join first with muster join <label>, or pick one from muster roster`,
    { label },
  );
}

export async function sendCommand(context: Context, options: SendOptions) {
  const labels = options.to.split(",").map((label) => label.trim());
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
    if (sender?.state !== "live") throw notSender(undefined, options.from);
    return deliver(context, options, { body, labels, sender: sender.id, caller: undefined });
  }
  // The shell's member, joined first when it is not on the team: only once the message and
  // every address passed the roster's own checks, so a typo in a label leaves nobody behind.
  const caller = await actingCaller(context, options.id);
  await asCallerMember(context, caller, MEMBER_USE.send!, {
    purpose: `to send mail to ${options.to}`,
    check: async (wouldBe) => {
      const read = await roster.read();
      if (!read.ok) throw unreadable("roster-unknown", read);
      const empty = body.trim() === "";
      const size = Buffer.byteLength(body, "utf8");
      if (empty || size > MAX_BODY_BYTES) {
        const reason = empty ? "empty-body" : "body-too-large";
        const error = empty ? "the message is empty" : bodyTooLarge(size);
        throw new Refusal(reason, { error, fix: SEND_FIXES[reason] });
      }
      for (const label of labels) {
        const checked = resolveRecipients(read.members, {
          from: wouldBe.id,
          to: label,
          guest: wouldBe.label,
        });
        if (!checked.ok) throw addressRefused(checked, label, read.members, { label });
      }
      return undefined;
    },
    act: (member, joined) =>
      deliver(context, options, { body, labels, sender: member.id, caller, joined }),
  });
}

/** A refused address; one that nobody live holds names the live label nearest the one typed. */
function addressRefused(
  failure: { reason: string; error: string; fix?: string | undefined },
  label: string,
  members: readonly { label: string; state: string }[],
  details: Record<string, unknown>,
) {
  const live = members.filter((member) => member.state === "live").map((member) => member.label);
  return new Refusal(
    failure.reason,
    failure.reason === "no-live-holder" ? withSuggestion(failure, label, live) : failure,
    details,
  );
}

type Delivery = {
  body: string;
  labels: string[];
  /** The sender's session id, a live member. */
  sender: string;
  caller: Caller | undefined;
  /** The label the sender joined under for this send, if it did. */
  joined?: string | null | undefined;
};

/** Send to every label as `sender`, then report how each recipient will see it. */
async function deliver(context: Context, options: SendOptions, delivery: Delivery) {
  const { body, labels, caller } = delivery;
  const roster = await context.roster();
  const from = delivery.sender;
  const read = await roster.read();
  if (!read.ok) throw unreadable("roster-unknown", read);
  // Every recipient is checked before anything is sent (the roster's own order): a typo in one
  // label sends nothing.
  const sender = read.members.find((member) => member.id === from);
  if (sender?.state !== "live") throw notSender(caller, options.from);
  // One label: the roster's send checks it (after the body). Several: each address is checked
  // with the roster's own check before the first is sent, so a bad one sends nothing.
  for (const label of labels.length > 1 ? labels : []) {
    const checked = resolveRecipients(read.members, { from: sender.id, to: label });
    if (!checked.ok && checked.reason === "not-member") throw notSender(caller, options.from);
    if (!checked.ok) throw addressRefused(checked, label, read.members, { label });
  }
  // A reply carries one hop more than what it answers, so a thread bounced between agents stops
  // waking them (the core rule); the message answered is looked up in the sender's mailbox.
  const answered = options.replyTo ? await roster.received(sender.id, options.replyTo) : undefined;
  const hops = replyHops(options.replyTo, () => answered?.hops);
  let id: string | undefined;
  let sentAt = "";
  const recipients: (Receipt & { ok: true })["to"] = [];
  const refused: Undelivered[] = [];
  const missed = (each: Undelivered) => {
    if (!refused.some((earlier) => earlier.id === each.id)) refused.push(each);
  };
  for (const label of labels) {
    const holder = holderOf(read.members, label);
    // The address as the roster holds the label, not as it was typed.
    const to = holder?.label ?? label;
    const receipt = await roster.send({
      from,
      to,
      body,
      urgent: options.urgent,
      replyTo: options.replyTo,
      hops,
      id,
      turns: conversationTurns(),
    });
    // The first send past its conversation's budget tells the lead and the person, once.
    await tellBrake(roster, receipt, sender, { env: process.env });
    if (!receipt.ok && receipt.refused?.length) {
      // Written nowhere for this label: its recipients are reported, the other labels still go.
      receipt.refused.forEach(missed);
      continue;
    }
    if (!receipt.ok) {
      if (receipt.reason === "not-member") throw notSender(caller, options.from);
      throw addressRefused(receipt, label, read.members, { sent: recipients });
    }
    id = receipt.id;
    sentAt = receipt.sentAt;
    for (const recipient of receipt.to)
      if (!recipients.some((earlier) => earlier.id === recipient.id)) recipients.push(recipient);
    receipt.refused.forEach(missed);
  }
  if (recipients.length === 0)
    throw new Refusal(
      "unwritable",
      errorLine({
        error: refused.map((each) => each.error).join("; "),
        fix: SEND_FIXES.unwritable,
      }),
      { refused },
    );
  const report = recipients.map((recipient) => {
    const member = read.members.find((candidate) => candidate.id === recipient.id);
    const push = mailReach(
      { id: id!, urgent: options.urgent, hops },
      member?.watching ?? { armed: false, wake: false },
      member,
    );
    const activity = member ? activityView(member, Date.now(), context.io.env).state : "unknown";
    return { ...recipient, push, activity };
  });
  const waited = options.wait
    ? await waitForReceipts(roster, id!, report, options.wait.goal, options.wait.timeoutMs)
    : undefined;
  const document = {
    id,
    joined: delivery.joined ?? null,
    to: report.map((recipient) => recipient.label),
    recipients: report,
    refused,
    replyTo: options.replyTo ?? null,
    sentAt,
    ...(waited ? { wait: { ...waited, timeoutMs: options.wait!.timeoutMs } } : {}),
  };
  if (!waited || waited.done) {
    if (context.json) return context.emit(document);
    showSent(context, document, waited);
    return;
  }
  if (!context.json) showSent(context, document, waited);
  throw new Refusal("not-reached", notReachedLine(waited, options.wait!.timeoutMs), document);
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
      push: MailReach;
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
        ...shown.map(
          (recipient) =>
            `  ${recipientLine(recipient.label, recipient.push, recipient.activity)}${phase(recipient.id)}`,
        ),
        ...document.refused.map((each) => `  ${each.label}: not delivered (${each.error})`),
      ].join("\n"),
      { lines: true },
    ),
  );
}

export type InboxOptions = {
  id?: string | undefined;
  label?: string | undefined;
  peek: boolean;
  follow: boolean;
  /** Read mail too, newest last, each reply under what it answers. */
  all?: boolean | undefined;
};

export function formatMessage(context: Context, message: Message): string {
  const time = message.sentAt.slice(11, 19);
  const urgent = message.urgent ? ` ${context.color.red("urgent")}` : "";
  const { color } = context;
  const head = `${color.dim(printable(time))} ${color.bold(printable(message.from.label))} → ${printable(message.to)}${urgent}  ${color.dim(printable(message.id))}`;
  return `${head}\n${printable(message.body, { lines: true })
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n")}`;
}

export async function inboxCommand(context: Context, options: InboxOptions) {
  const roster = await context.roster();
  let id = options.id;
  if (options.label) {
    const read = await roster.read();
    const member = read.ok ? holderOf(read.members, options.label) : undefined;
    if (!member) {
      const failure = withSuggestion(
        {
          error: `nobody on the team holds the label "${options.label}"`,
          fix: "see muster roster",
        },
        options.label,
        read.ok ? read.members.map((entry) => entry.label) : [],
      );
      throw new Refusal("not-found", failure);
    }
    id = member.id;
  }
  const caller = id === undefined ? await resolveCaller(context) : undefined;
  const memberId = id ?? caller!.id;
  const asked = caller ?? { id: memberId, agent: "member", pid: 0, explicit: true };
  // Someone who left keeps reading what waits; someone who never joined is told so.
  if (!(await onTeam(context, memberId))) {
    const history = await roster.history(memberId);
    if (!history.ok || history.messages.length === 0) throw notMember(asked);
  }
  if (options.all) return showHistory(context, roster, memberId, options.peek, formatMessage);
  const take = async () => {
    const inbox = await roster.receive(memberId);
    if (!inbox.ok) throw new Refusal(inbox.reason, inbox.error);
    for (const warning of inbox.warnings) context.warn(warning);
    return inbox.messages;
  };
  // Mail is marked read only once its text was written: a full disk or a closed pipe keeps it.
  const hand = async (messages: Message[], text: string) => {
    await printMail(context, text);
    if (messages.length === 0) return;
    const ids = messages.map((message) => message.id);
    // Printed is shown: delivered, even with --peek; read only without it.
    await roster.markDelivered(memberId, ids, "inbox");
    if (!options.peek) await roster.ack(memberId, ids);
  };
  const messages = await take();
  if (!options.follow) {
    const text = context.json
      ? `${JSON.stringify({ ok: true, id: memberId, messages }, null, 2)}\n`
      : messages.length === 0
        ? "No new mail.\n"
        : `${messages.map((message) => formatMessage(context, message)).join("\n")}\n`;
    return hand(messages, text);
  }
  // Follow: one line of JSON (or one block) per message as it arrives, until interrupted.
  const show = (batch: Message[]) =>
    batch.length === 0
      ? Promise.resolve()
      : hand(
          batch,
          batch
            .map((message) =>
              context.json
                ? `${JSON.stringify({ ok: true, ...message })}\n`
                : `${formatMessage(context, message)}\n`,
            )
            .join(""),
        );
  await show(messages);
  const seen = new Set(messages.map((message) => message.id));
  await new Promise<void>((resolve, reject) => {
    const inbox = watchInbox({
      folder: () => roster.inboxFolder(memberId),
      signal: (onMail) => roster.watchMail(memberId, onMail),
      read: async () => {
        const batch = (await take()).filter((message) => !seen.has(message.id));
        await show(batch);
        for (const message of batch) seen.add(message.id);
      },
      sweepMs: 2000,
      keepAlive: true,
      onError: (error) => finish(error),
    });
    const finish = (error?: unknown) => {
      inbox.close();
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      if (error === undefined) resolve();
      else reject(error);
    };
    const stop = () => finish();
    if (!inbox.watching) {
      inbox.close();
      reject(
        new Refusal(
          "not-member",
          `${memberId} has no mailbox on this team; join first with muster join <label>`,
        ),
      );
      return;
    }
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
