// A session's mail history: what it has read and what waits, oldest first. Read-only:
// nothing is acknowledged, moved or quarantined here; a file that does not parse is named in a
// warning and left for `receive` or prune to deal with.
import { errorText } from "./_error.js";
import { type Message, parseMessage } from "./_message.js";
import type { Team } from "./_team.js";
import { validateId } from "./_validate.js";

export type HistoryEntry = Message & { read: boolean };

export type History =
  | { ok: true; messages: HistoryEntry[]; warnings: string[] }
  | { ok: false; reason: "bad-id" | "unreadable"; error: string; fix?: string | undefined };

/** Every message in session `id`'s mailbox, read or not, oldest first. */
export async function mailHistory(team: Team, id: string): Promise<History> {
  const valid = validateId(id);
  if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error, fix: valid.fix };
  const byId = new Map<string, HistoryEntry>();
  const warnings: string[] = [];
  try {
    // Read mail last: a message delivered again after a crash and already read counts as read.
    for (const [folder, listing] of [
      ["new", await team.store.mail.unread(id)],
      ["cur", await team.store.mail.read(id)],
    ] as const) {
      for (const stray of listing.strays)
        warnings.push(`mail/${id}/${folder}/${stray.name} is not a message; skipped`);
      for (const entry of listing.messages) {
        const message = parseMessage(entry.text, entry.id);
        if (message) byId.set(message.id, { ...message, read: folder === "cur" });
        else warnings.push(`mail/${id}/${folder}/${entry.name} is not a message; skipped`);
      }
    }
  } catch (error) {
    return {
      ok: false,
      reason: "unreadable",
      error: `cannot read the mailbox of ${id}: ${errorText(error)}`,
    };
  }
  const messages = [...byId.values()].sort(
    (left, right) => left.sentAt.localeCompare(right.sentAt) || left.id.localeCompare(right.id),
  );
  return { ok: true, messages, warnings };
}
