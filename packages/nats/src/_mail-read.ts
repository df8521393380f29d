// Reading the mail of the NATS store: a member's unread or read mail as the roster lists it, what
// waits for it, and mail marked read by another key. Mail this member's key does not open (another
// member's) is neither listed nor set aside; mail refused for a reason of its own is a stray.
import { readKey, swapKey } from "./_kv.js";
import { keysKept } from "./_list.js";
import { idOfKey, mailKey, nameOf, token } from "./_mail-keys.js";
import { isRefused, type Refused, type Values } from "./_values.js";

type MailEntry = { id: string; name: string; text: string };
export type MailListing = {
  messages: MailEntry[];
  duplicates: string[];
  strays: { name: string; error: string }[];
};

/** `member`'s mail in `state`, checked, each with its id; at most the bound of each key's. */
async function checked(kept: Values, state: string, member: string) {
  const listed = await kept.list(`${state}.${token(member)}.`);
  return {
    entries: listed.entries.map((entry) => ({ ...entry, id: idOfKey(entry.key) })),
    refused: listed.refused.map((each) => ({ ...each, id: idOfKey(each.key) })),
  };
}

/** Mail refused for a reason of its own (not merely sealed to another member): a stray. */
const strays = (refused: (Refused & { id: string })[]) =>
  refused
    .filter((each) => !each.notMine)
    .map((each) => ({ name: nameOf(each.id), error: each.error }));

/** `member`'s unread mail (less what is read already, plus what another key marked read), or read. */
export async function listMail(
  kept: Values,
  state: "unread" | "read",
  member: string,
): Promise<MailListing> {
  // Both listed at once: the read mail says which unread mail was read already.
  const [{ entries, refused }, marked] = await Promise.all([
    checked(kept, state, member),
    state === "unread" ? checked(kept, "read", member) : undefined,
  ]);
  const read = new Set(marked?.entries.map((entry) => entry.id));
  // Marked read by a key that may not (a teammate's forged ack): still unread, and shown.
  const forged = marked?.refused.filter((each) => each.stillUnread !== undefined) ?? [];
  const listed = new Set(entries.map((entry) => entry.id));
  const replayed =
    state === "unread"
      ? await readBefore(
          kept,
          member,
          entries.filter((entry) => !read.has(entry.id)),
        )
      : new Map<string, { name: string; error: string }>();
  return {
    messages: [
      ...entries
        .filter((entry) => !read.has(entry.id) && !replayed.has(entry.id))
        .map((entry) => ({ id: entry.id, name: nameOf(entry.id), text: entry.value })),
      ...forged
        .filter((each) => !listed.has(each.id))
        .map((each) => ({ id: each.id, name: nameOf(each.id), text: each.stillUnread ?? "" })),
    ],
    duplicates: entries.filter((entry) => read.has(entry.id)).map((entry) => nameOf(entry.id)),
    strays: [...strays(refused), ...[...replayed.values()]],
  };
}

/**
 * The unread mail among `unread` that was read before: its read copy deleted and the mail put back
 * (a teammate replaying a message signed and sealed long ago, to deliver it again). Delivery is
 * one exclusive create and reading it one more, so a message is never unread after it was read;
 * only a raw delete and put do that. Said, and listed as strays: refused, never shown as new.
 */
async function readBefore(
  kept: Values,
  member: string,
  unread: readonly { id: string; key: string }[],
): Promise<Map<string, { name: string; error: string }>> {
  const replayed = new Map<string, { name: string; error: string }>();
  if (unread.length === 0 || !kept.trust) return replayed;
  const once = await keysKept(kept.bucket, `read.${token(member)}.`);
  for (const { id, key } of unread) {
    if (!once.has(mailKey("read", member, id))) continue;
    const error = `it was read already: its read copy was deleted and the mail put back (a replay, not muster's)`;
    kept.trust.note(`replayed ${key}`, `refused ${key} in ${kept.bucket.name}: ${error}`);
    replayed.set(id, { name: nameOf(id), error });
  }
  return replayed;
}

/** Unread mail of the member's, its own or sealed to it and not openable here. */
export async function waitingMail(kept: Values, member: string) {
  const [box, read] = await Promise.all([
    checked(kept, "unread", member),
    checked(kept, "read", member),
  ]);
  const done = new Set(read.entries.map((entry) => entry.id));
  const entries = [
    ...box.entries,
    ...box.refused.filter((each) => each.notMine).map((each) => ({ ...each.raw, id: each.id })),
  ].filter((entry) => !done.has(entry.id));
  const oldest = entries.reduce<number | undefined>(
    (least, entry) => (least === undefined || entry.created < least ? entry.created : least),
    undefined,
  );
  return entries.length === 0 ? { count: 0 } : { count: entries.length, oldestAt: oldest };
}

/** Mail marked read by another key, marked again by this member (its ack): whether it was. */
export async function markedByOther(kept: Values, member: string, id: string): Promise<boolean> {
  const { bucket, trust } = kept;
  const entry = await readKey(bucket, mailKey("read", member, id));
  const checkedEntry = entry && (await kept.check(entry));
  if (!entry || !trust || !isRefused(checkedEntry) || checkedEntry.stillUnread === undefined)
    return false;
  const marked = trust.remark(entry.key, entry.value);
  return marked !== undefined && (await swapKey(bucket, entry.key, marked, entry.revision)).ok;
}

/** `member`'s mail sealed to another member's key (not this one's), by state and name. */
export async function sealedMail(kept: Values, member: string): Promise<string[]> {
  const names: string[] = [];
  for (const state of ["unread", "read"] as const)
    for (const each of (await checked(kept, state, member)).refused)
      if (each.notMine) names.push(`${state}/${nameOf(each.id)}`);
  return names;
}

/** The unsealed message `id` of `member`'s, unread or read; undefined when none opens here. */
export async function getMail(kept: Values, member: string, id: string) {
  for (const state of ["unread", "read"] as const) {
    const entry = await kept.read(mailKey(state, member, id));
    if (entry && !isRefused(entry))
      return { id, name: nameOf(id), text: entry.value, read: state === "read" };
  }
  return undefined;
}
