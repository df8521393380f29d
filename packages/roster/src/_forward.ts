// Forwarding: a label taken over from a dead or expired holder brings the mail that waited unread
// for that holder (it was addressed to the label) into the new holder's mailbox, each message
// marked `forwardedFrom` the previous holder. Delivered first, then discarded: a crash between the
// two leaves a copy in both (prune later retires the old one), never none.
import { CLAIM_GRACE_MS } from "./_claim.js";
import { readClaim } from "./_claim-read.js";
import { MAX_CLOCK_SKEW_MS } from "./_liveness.js";
import { withMemberLock } from "./_lock.js";
import { loadRecord } from "./_members.js";
import { type Message, parseMessage } from "./_message.js";
import { markPhase } from "./_receipts.js";
import type { Team } from "./_team.js";
import { labelKey } from "./_validate.js";

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
    // takeover forwards it, or prune retires it with the mailbox. Never a mailbox without one.
    if (left === 0) await team.store.remove("sessions", previous);
    return forwarded;
  });
  return done ?? 0;
}

/**
 * Who `label`'s unread mail belongs to now that `previous`, whose record still names it, is to be
 * forgotten: another member whose record names the label and holds its claim (`forward`), or one
 * that has claimed it within the claim grace and not yet written its record (`wait`: a join in
 * progress, which retires `previous` itself); otherwise nobody (the mail is retired as usual).
 */
export async function labelSuccessor(
  team: Team,
  previous: string,
  label: string,
): Promise<{ forward: string } | "wait" | undefined> {
  const claim = await readClaim(team, "labels", label);
  if (claim === undefined || claim === "unreadable" || claim.holder === previous) return undefined;
  const record = await loadRecord(team, claim.holder).catch(() => undefined);
  if (record && labelKey(record.label) === labelKey(label)) return { forward: claim.holder };
  const age = team.clock() - Date.parse(claim.at);
  // A claim dated in the future beyond the skew bound is not believed (as a join judges it): a bad
  // clock or a hostile write never keeps the member from prune.
  return !record && age < CLAIM_GRACE_MS && -age <= MAX_CLOCK_SKEW_MS ? "wait" : undefined;
}

/**
 * Forward `from`'s unread mail to `to`, each copy marked `forwardedFrom`, its receipt marked, then
 * the old copy discarded; how many were delivered, and how many could not be moved (they stay).
 */
export async function forwardUnread(team: Team, from: Message["forwardedFrom"] & {}, to: string) {
  // A mailbox that cannot be listed (a symlink where new/ should be): nothing is followed.
  const unread = await team.store.mail.unread(from.id).catch(() => undefined);
  let forwarded = 0;
  let left = 0;
  for (const entry of unread?.messages ?? []) {
    const message = parseMessage(entry.text, entry.id);
    if (!message) continue; // not mail: left where it is, for the reader's quarantine
    try {
      const copy: Message = { ...message, forwardedFrom: { id: from.id, label: from.label } };
      // Already there (a retried forward): not written twice.
      if (
        (await team.store.mail.deliver(to, entry.id, `${JSON.stringify(copy)}\n`)) === "delivered"
      )
        forwarded += 1;
      // The receipt follows the mail: a sender waiting on the old holder sees the new one read
      // it. Marked before the old copy goes, so a crash in between leaves the link for the retry.
      await markPhase(team, "written", to, [entry.id], "forwarded", from.id);
      await team.store.mail.discard(from.id, entry.name);
    } catch {
      // One that cannot be moved stays where it was, and so does the record it belongs to.
      left += 1;
    }
  }
  return { forwarded, left };
}
