// Forwarding: a label taken over from a dead or expired holder brings the mail that waited unread
// for that holder (it was addressed to the label) into the new holder's inbox, each message marked
// `forwardedFrom` the previous holder. Copied first, then removed: a crash between the two leaves
// a copy in both (prune later moves the old one aside to expired/), never none.
import {
  FILE_MODE,
  isTempName,
  listFolder,
  readIfPresent,
  tempBeside,
  unlinkIfPresent,
} from "./_fs.js";
import { withMemberLock } from "./_lock.js";
import { loadRecord } from "./_members.js";
import { type Message, parseMessage } from "./_message.js";
import type { Team } from "./_team.js";
import { labelKey, validateId } from "./_validate.js";

/**
 * Retire the previous holder of `label` after `to` took it over: under its member lock (the one
 * prune and its own joins take), if its record still names this label, forward its unread mail to
 * `to` and remove the record. How many messages were forwarded.
 */
export async function retirePreviousHolder(
  team: Team,
  previous: string,
  label: string,
  to: string,
): Promise<number> {
  const done = await withMemberLock(team, previous, async () => {
    const record = await loadRecord(team, previous);
    if (!record || labelKey(record.label) !== labelKey(label)) return 0;
    const { forwarded, left } = await forwardUnread(
      team,
      { id: previous, label: record.label },
      to,
    );
    // Mail that could not be moved (the new holder has no mailbox yet) keeps its record: a later
    // takeover forwards it, or prune moves it aside with the mailbox. Never a mailbox without one.
    if (left === 0) await unlinkIfPresent(team.fs, team.paths.recordFile(previous));
    return forwarded;
  });
  return done ?? 0;
}

async function forwardUnread(team: Team, from: Message["forwardedFrom"] & {}, to: string) {
  const inbox = team.paths.inboxFolder(from.id);
  // A symlink or a file where new/ should be: nothing is followed out of the team.
  const names = await listFolder(team.fs, inbox).catch(() => []);
  let forwarded = 0;
  let left = 0;
  for (const name of names) {
    const messageId = name.endsWith(".json") ? name.slice(0, -5) : "";
    if (isTempName(name) || !validateId(messageId).ok) continue;
    try {
      const text = await readIfPresent(team.fs, `${inbox}/${name}`);
      const message = text === undefined ? undefined : parseMessage(text, messageId);
      if (!message) continue; // not mail: left where it is, for the reader's quarantine
      const target = `${team.paths.inboxFolder(to)}/${name}`;
      // Already there (a retried forward): not written twice. A read that fails leaves it alone.
      const seen =
        (await readIfPresent(team.fs, target)) ??
        (await readIfPresent(team.fs, `${team.paths.readFolder(to)}/${name}`));
      if (seen === undefined) {
        const copy: Message = { ...message, forwardedFrom: { id: from.id, label: from.label } };
        const temp = tempBeside(`${team.paths.mailTmp(to)}/${name}`, team.clock());
        await team.fs.writeFile(temp, `${JSON.stringify(copy)}\n`, FILE_MODE);
        await team.fs.rename(temp, target);
        forwarded += 1;
      }
      await unlinkIfPresent(team.fs, `${inbox}/${name}`);
    } catch {
      // One that cannot be moved stays where it was, and so does the record it belongs to.
      left += 1;
    }
  }
  return { forwarded, left };
}
