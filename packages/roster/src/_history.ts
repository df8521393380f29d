// A session's mail history: what it has read (cur/) and what waits (new/), oldest first. Read-only:
// nothing is acknowledged, moved or quarantined here; a file that does not parse is named in a
// warning and left for `receive` or prune to deal with.
import { errorText, isTempName, listFolder, readIfPresent } from "./_fs.js";
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
  const mailbox = team.paths.mailbox(id);
  const byId = new Map<string, HistoryEntry>();
  const warnings: string[] = [];
  try {
    // cur/ last: a message delivered again after a crash and already read counts as read.
    for (const folder of ["new", "cur"] as const) {
      for (const name of await listFolder(team.fs, `${mailbox}/${folder}`)) {
        if (isTempName(name)) continue;
        const messageId = name.endsWith(".json") ? name.slice(0, -5) : "";
        const text = validateId(messageId).ok
          ? await readIfPresent(team.fs, `${mailbox}/${folder}/${name}`)
          : undefined;
        if (text === undefined && validateId(messageId).ok) continue; // moved since the listing
        const message = text === undefined ? undefined : parseMessage(text, messageId);
        if (!message) {
          warnings.push(`mail/${id}/${folder}/${name} is not a message; skipped`);
          continue;
        }
        byId.set(message.id, { ...message, read: folder === "cur" });
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
