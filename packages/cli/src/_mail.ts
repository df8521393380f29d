// `muster send` and `muster inbox`: mail between members. The sender is the member this shell
// belongs to, or --from; `inbox --follow` watches the mailbox (with a slow sweep as a fallback).
import { holderOf, printable, replyHops } from "@muster/core";
import type { Message, Roster } from "@muster/roster";
import { errorMessage, watchInbox } from "@muster/wiring";
import { type Context, Refusal, UsageError } from "./_context.js";
import { resolveCaller } from "./_identity.js";

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

export type SendOptions = {
  to: string;
  words: string[];
  from?: string | undefined;
  id?: string | undefined;
  urgent: boolean;
  replyTo?: string | undefined;
};

export async function sendCommand(context: Context, options: SendOptions) {
  const fromStdin =
    options.words.length === 0 || (options.words.length === 1 && options.words[0] === "-");
  if (fromStdin && context.io.stdin.isTTY) {
    throw new UsageError("no message: pass it after the label, or pipe it on stdin");
  }
  const body = fromStdin
    ? (await readStdin(context.io.stdin)).replace(/\n$/, "")
    : options.words.join(" ");
  const roster = await context.roster();
  const from = options.from ?? (await resolveCaller(context, options.id)).id;
  // A reply carries one hop more than the message it answers (read from the sender's mailbox),
  // so two agents answering each other stop waking one another (core's replyHops).
  const answered =
    options.replyTo === undefined ? undefined : await receivedBy(roster, from, options.replyTo);
  const receipt = await roster.send({
    from,
    to: options.to,
    body,
    urgent: options.urgent,
    replyTo: options.replyTo,
    hops: replyHops(options.replyTo, () => answered?.hops),
  });
  if (!receipt.ok) {
    const line =
      receipt.reason === "not-member"
        ? "this shell is not on the team: join first with muster join <label>, or pass --from <label>"
        : receipt.error;
    throw new Refusal(receipt.reason, line);
  }
  const recipients = receipt.to.filter((recipient) => !recipient.duplicate);
  if (context.json) {
    return context.emit({
      id: receipt.id,
      to: receipt.to.map((recipient) => recipient.label),
      recipients: receipt.to,
      sentAt: receipt.sentAt,
    });
  }
  context.out(
    printable(
      `Sent ${receipt.id} to ${recipients.map((recipient) => recipient.label).join(", ") || "nobody new (already delivered)"}.`,
    ),
  );
}

/** The message `from` (an id, or a label it holds) received with this id, if any. */
async function receivedBy(roster: Roster, from: string, messageId: string) {
  const read = await roster.read();
  const id = (read.ok ? holderOf(read.members, from)?.id : undefined) ?? from;
  return roster.received(id, messageId);
}

export type InboxOptions = {
  id?: string | undefined;
  label?: string | undefined;
  peek: boolean;
  follow: boolean;
};

function formatMessage(context: Context, message: Message): string {
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
    if (!member)
      throw new Refusal(
        "not-found",
        `nobody on the team holds the label "${options.label}"; see muster roster`,
      );
    id = member.id;
  }
  id ??= (await resolveCaller(context)).id;
  const memberId = id;
  const take = async () => {
    const inbox = await roster.receive(memberId);
    if (!inbox.ok) throw new Refusal(inbox.reason, inbox.error);
    for (const warning of inbox.warnings) context.warn(warning);
    return inbox.messages;
  };
  // Mail is marked read only once its text was written: a full disk or a closed pipe keeps it.
  const hand = async (messages: Message[], text: string) => {
    try {
      await context.print(text);
    } catch (error) {
      throw new Refusal(
        "output-failed",
        `could not write the mail (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}); it stays unread`,
      );
    }
    if (!options.peek && messages.length > 0)
      await roster.ack(
        memberId,
        messages.map((message) => message.id),
      );
  };
  const messages = await take();
  if (!options.follow) {
    const text = context.json
      ? `${JSON.stringify({ id: memberId, messages }, null, 2)}\n`
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
                ? `${JSON.stringify(message)}\n`
                : `${formatMessage(context, message)}\n`,
            )
            .join(""),
        );
  await show(messages);
  const seen = new Set(messages.map((message) => message.id));
  await new Promise<void>((resolve, reject) => {
    const inbox = watchInbox({
      folder: () => roster.inboxFolder(memberId),
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
