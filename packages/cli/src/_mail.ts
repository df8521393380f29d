// `muster inbox`: a member's mail, shown once and marked read; `--follow` watches the mailbox
// (with a slow sweep as a fallback). Sending is `_send.ts`.
import { holderOf, printable, withSuggestion } from "@muster/core";
import type { Message, Roster } from "@muster/roster";
import { watchInbox } from "@muster/wiring";
import { type Context, Refusal } from "./_context.js";
import { printMail, showHistory } from "./_history.js";
import { notMember, resolveCaller } from "./_identity.js";
import { onTeam } from "./_membership.js";

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

/** The member whose inbox is read: by --label, --id or the caller; refused if never on the team. */
async function inboxOf(context: Context, roster: Roster, options: InboxOptions): Promise<string> {
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
  return memberId;
}

/** Watch the mailbox and show each new message once, until interrupted. */
function followInbox(
  roster: Roster,
  memberId: string,
  take: () => Promise<Message[]>,
  show: (batch: Message[]) => Promise<void>,
  seen: Set<string>,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
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

export async function inboxCommand(context: Context, options: InboxOptions) {
  const roster = await context.roster();
  const memberId = await inboxOf(context, roster, options);
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
  await followInbox(roster, memberId, take, show, new Set(messages.map((message) => message.id)));
}
