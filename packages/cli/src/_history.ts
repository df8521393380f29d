// `muster inbox --all`: the whole mailbox, read mail too. Threads by reply: each reply sits under
// the message it answers, and the thread with the newest message comes last, as in a mail client.
import { printable } from "@muster/core";
import type { HistoryEntry, Message, Roster } from "@muster/roster";
import { errorMessage } from "@muster/wiring";
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
  const history = await roster.history(id);
  if (!history.ok) throw new Refusal(history.reason, history.error);
  const lines = threads(history.messages);
  if (!context.json) for (const warning of history.warnings) context.warn(warning);
  const text = context.json
    ? `${JSON.stringify(
        {
          ok: true,
          id,
          messages: lines.map((line) => ({
            ...line.message,
            depth: line.depth,
            thread: line.thread,
          })),
          warnings: history.warnings,
        },
        null,
        2,
      )}\n`
    : lines.length === 0
      ? "No mail.\n"
      : `${lines.map((line) => renderLine(context, line, format)).join("\n")}\n`;
  // As for new mail: it is marked read only once its text was written.
  try {
    await context.print(text);
  } catch (error) {
    throw new Refusal(
      "output-failed",
      `could not write the mail (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}); it stays unread`,
    );
  }
  const fresh = history.messages.filter((message) => !message.read).map((message) => message.id);
  if (fresh.length > 0) await roster.markDelivered(id, fresh, "inbox");
  if (!peek && fresh.length > 0) {
    const acked = await roster.ack(id, fresh);
    if (!acked.ok) throw new Refusal(acked.reason, `${acked.error}; the mail stays new`);
  }
}

/** One message of a thread: indented by its depth, a reply marked, new mail marked. */
function renderLine(
  context: Context,
  line: ThreadLine,
  format: (context: Context, message: Message) => string,
): string {
  const indent = "    ".repeat(line.depth);
  const mark = line.message.read ? "" : `${context.color.cyan("new")} `;
  const reply = line.depth > 0 ? "↳ " : "";
  const answers =
    line.depth === 0 && line.message.replyTo
      ? context.color.dim(` (reply to ${printable(line.message.replyTo)})`)
      : "";
  return format(context, line.message)
    .replace("\n", `${answers}\n`)
    .split("\n")
    .map((text, index) => (index === 0 ? `${indent}${reply}${mark}${text}` : `${indent}${text}`))
    .join("\n");
}
