// `muster inbox --all`: the whole mailbox, read mail too. Threads by reply: each reply sits under
// the message it answers, and the thread with the newest message comes last, as in a mail client.
import type { HistoryEntry, Message, Roster } from "@muster/roster";
import { mailHistory } from "@muster/roster";
import { type Context, Refusal } from "./_context.js";

export type ThreadLine = { message: HistoryEntry; depth: number; thread: string };

/**
 * Messages (oldest first) as threads. A reply goes under what it answers when that is in the
 * mailbox; otherwise it starts a thread. `replyTo` is written by the sender, so a loop of replies
 * or a reply to itself cannot hide a message: whatever no thread reached is shown on its own.
 */
export function threads(messages: readonly HistoryEntry[]): ThreadLine[] {
  const byId = new Map(messages.map((message) => [message.id, message]));
  const replies = new Map<string, HistoryEntry[]>();
  const roots: HistoryEntry[] = [];
  for (const message of messages) {
    const parent = message.replyTo;
    if (parent !== undefined && parent !== message.id && byId.has(parent)) {
      replies.set(parent, [...(replies.get(parent) ?? []), message]);
    } else roots.push(message);
  }
  const shown = new Set<string>();
  const walk = (message: HistoryEntry, depth: number, thread: string, into: ThreadLine[]) => {
    if (shown.has(message.id)) return;
    shown.add(message.id);
    into.push({ message, depth, thread });
    for (const reply of replies.get(message.id) ?? []) walk(reply, depth + 1, thread, into);
  };
  const grouped: ThreadLine[][] = [];
  for (const root of roots) {
    const lines: ThreadLine[] = [];
    walk(root, 0, root.id, lines);
    grouped.push(lines);
  }
  for (const message of messages) {
    if (shown.has(message.id)) continue;
    const lines: ThreadLine[] = [];
    walk(message, 0, message.id, lines);
    grouped.push(lines);
  }
  const newest = (lines: ThreadLine[]) =>
    lines
      .map((line) => line.message.sentAt)
      .sort()
      .at(-1) ?? "";
  return grouped
    .map((lines, order) => ({ lines, order, newest: newest(lines) }))
    .sort((left, right) => left.newest.localeCompare(right.newest) || left.order - right.order)
    .flatMap((group) => group.lines);
}

/** Print the mailbox of `id` as threads; new mail is then marked read unless `peek`. */
export async function showHistory(
  context: Context,
  roster: Roster,
  id: string,
  peek: boolean,
  format: (context: Context, message: Message) => string,
) {
  const history = await mailHistory(roster, id);
  if (!history.ok) throw new Refusal(history.reason, history.error);
  const lines = threads(history.messages);
  const fresh = history.messages.filter((message) => !message.read).map((message) => message.id);
  if (!peek && fresh.length > 0) {
    const acked = await roster.ack(id, fresh);
    if (!acked.ok) throw new Refusal(acked.reason, `${acked.error}; the mail stays new`);
  }
  if (context.json) {
    return context.emit({
      id,
      messages: lines.map((line) => ({ ...line.message, depth: line.depth, thread: line.thread })),
      warnings: history.warnings,
    });
  }
  for (const warning of history.warnings) context.warn(warning);
  if (lines.length === 0) return context.out("No mail.");
  context.out(
    lines
      .map((line) => {
        const indent = "    ".repeat(line.depth);
        const mark = line.message.read ? "" : `${context.color.cyan("new")} `;
        const reply = line.depth > 0 ? "↳ " : "";
        const answers =
          line.depth === 0 && line.message.replyTo
            ? context.color.dim(` (reply to ${line.message.replyTo})`)
            : "";
        return `${format(context, line.message)}`
          .replace("\n", `${answers}\n`)
          .split("\n")
          .map((text, index) =>
            index === 0 ? `${indent}${reply}${mark}${text}` : `${indent}${text}`,
          )
          .join("\n");
      })
      .join("\n"),
  );
}
