// What a team's store holds, read whole and written whole, for `muster migrate`: every keyed space
// (records, claims, cards, the board's lead), every mailbox with its unread and read mail, and
// every receipt mark of that mail. Store-neutral: it speaks the roster's store contract only, so
// the team folder and NATS are read and written the same way. What a store holds but cannot be
// read (a planted file, an unreadable value) is named, never copied, and stays where it was.
import type { MailEntry, RosterStore, StoredMark, StoreSpace } from "@muster/roster";

/** The spaces a team's state is in: all but `locks` (held for a moment, never moved). */
const SPACES = [
  "sessions",
  "labels",
  "leases",
  "wakes",
  "cards",
  "spawns",
  "listeners",
  "lands",
  "board",
] as const;
// A space the contract gains and this list lacks fails to compile here.
type Unlisted = Exclude<StoreSpace, (typeof SPACES)[number] | "locks">;
const everySpace: [Unlisted] extends [never] ? true : false = true;
void everySpace;

export type Mailbox = { member: string; unread: MailEntry[]; read: MailEntry[] };

export type StoreContents = {
  spaces: { space: StoreSpace; key: string; text: string }[];
  mailboxes: Mailbox[];
  receipts: { message: string; marks: StoredMark[] }[];
  /** What is there but was not read, by name: it is not moved. */
  skipped: string[];
  /**
   * Mail this store cannot open (sealed to another member's key), `mail/<member>/<id>.json`: not
   * moved, and its mailbox left where it is, so its recipient still reads it there.
   */
  sealed: string[];
};

export type ContentsCount = {
  records: number;
  claims: number;
  board: number;
  mailboxes: number;
  unread: number;
  read: number;
  marks: number;
};

/** Everything the store holds of the team. Throws where a space cannot be listed whole. */
export async function readContents(store: RosterStore): Promise<StoreContents> {
  const contents: StoreContents = {
    spaces: [],
    mailboxes: [],
    receipts: [],
    skipped: [],
    sealed: [],
  };
  for (const space of SPACES) {
    const listing = await store.list(space);
    for (const entry of listing.entries)
      contents.spaces.push({ space, key: entry.key, text: entry.stored.text });
    for (const entry of listing.unreadable) contents.skipped.push(`${space}/${entry.name}`);
    for (const name of listing.strays) contents.skipped.push(`${space}/${name}`);
  }
  for (const { member } of (await store.mail.list()).mailboxes) {
    const [unread, read] = await Promise.all([store.mail.unread(member), store.mail.read(member)]);
    contents.mailboxes.push({ member, unread: unread.messages, read: read.messages });
    for (const stray of [...unread.strays, ...read.strays])
      contents.skipped.push(`mail/${member}/${stray.name}`);
    for (const name of (await store.mail.sealed?.(member)) ?? [])
      contents.sealed.push(`mail/${member}/${name.slice(name.indexOf("/") + 1)}`);
  }
  for (const { id } of (await store.receipts.list()).sort((one, other) =>
    one.id.localeCompare(other.id),
  )) {
    const read = await store.receipts.read(id);
    // A mark kept twice (folded and loose, after a fold cut short) moves once: the first stands.
    const seen = new Set<string>();
    const marks = read.marks
      .map(({ name: _name, folded: _folded, ...mark }) => mark)
      .filter((mark) => {
        const key = `${mark.member}\0${mark.phase}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    if (marks.length > 0) contents.receipts.push({ message: id, marks });
    for (const stray of read.strays) contents.skipped.push(`receipts/${id}/${stray.name}`);
  }
  return contents;
}

/** How much of each kind: what a report and a dry run show, and what a copy is checked by. */
export function countContents(contents: StoreContents): ContentsCount {
  const inSpace = (spaces: readonly string[]) =>
    contents.spaces.filter((entry) => spaces.includes(entry.space)).length;
  return {
    records: inSpace(["sessions"]),
    claims: inSpace(["labels", "leases", "wakes", "cards", "spawns", "listeners", "lands"]),
    board: inSpace(["board"]),
    mailboxes: contents.mailboxes.length,
    unread: contents.mailboxes.reduce((sum, box) => sum + box.unread.length, 0),
    read: contents.mailboxes.reduce((sum, box) => sum + box.read.length, 0),
    marks: contents.receipts.reduce((sum, receipt) => sum + receipt.marks.length, 0),
  };
}

/**
 * Every item of a team's contents by what names it, to its text: a key of a space, a mailbox, a
 * message (its state apart: a copy cut short between delivery and marking it read is partial,
 * not different), a receipt mark.
 */
export function contentItems(contents: StoreContents): Map<string, string> {
  const items = new Map<string, string>();
  for (const { space, key, text } of contents.spaces) items.set(`${space}/${key}`, text);
  for (const box of contents.mailboxes) {
    items.set(`mailbox/${box.member}`, "");
    for (const entry of [...box.unread, ...box.read])
      items.set(`mail/${box.member}/${entry.id}`, entry.text);
  }
  for (const { message, marks } of contents.receipts)
    for (const mark of marks)
      items.set(`receipt/${message}/${mark.member}/${mark.phase}`, JSON.stringify(mark));
  return items;
}

/** Whether every item of `part` is in `whole`, the same (what an interrupted copy or clear left). */
export function within(part: StoreContents, whole: StoreContents): boolean {
  const wholeItems = contentItems(whole);
  for (const [name, text] of contentItems(part)) if (wholeItems.get(name) !== text) return false;
  return true;
}

/** Nothing of a team: no record, claim, card, mailbox or receipt. */
export const isEmpty = (contents: StoreContents) =>
  Object.values(countContents(contents)).every((count) => count === 0);

/**
 * Write `contents` into an empty store: each key created exclusively (a key that turns out to be
 * there is named in `conflicts`, never overwritten), mail delivered and the read mail marked
 * read, receipts marked (a failed wake's latest mark, as it stood). What `there` holds already (an
 * interrupted copy's) is not written again; `midway` is awaited once half the keys are written.
 */
export async function writeContents(
  store: RosterStore,
  contents: StoreContents,
  there?: StoreContents,
  midway: () => Promise<void> = async () => undefined,
): Promise<{ conflicts: string[] }> {
  // What an interrupted copy wrote already (`there`, the destination as read): not written again.
  const present = there ? contentItems(there) : new Map<string, string>();
  const readThere = new Set(
    (there?.mailboxes ?? []).flatMap((box) => box.read.map((entry) => `${box.member}/${entry.id}`)),
  );
  const conflicts: string[] = [];
  const half = Math.floor(contents.spaces.length / 2);
  for (const [index, { space, key, text }] of contents.spaces.entries()) {
    if (index === half && index > 0) await midway();
    if (!present.has(`${space}/${key}`) && !(await store.create(space, key, text)))
      conflicts.push(`${space}/${key}`);
  }
  for (const box of contents.mailboxes) {
    await store.mail.ensure(box.member);
    for (const entry of [...box.unread, ...box.read])
      if (
        !present.has(`mail/${box.member}/${entry.id}`) &&
        (await store.mail.deliver(box.member, entry.id, entry.text)) === "duplicate"
      )
        conflicts.push(`mail/${box.member}/${entry.id}`);
    const toMark = box.read.filter((entry) => !readThere.has(`${box.member}/${entry.id}`));
    if (toMark.length > 0)
      await store.mail.ack(
        box.member,
        toMark.map((entry) => entry.id),
      );
  }
  for (const { message, marks } of contents.receipts)
    for (const mark of marks)
      if (!present.has(`receipt/${message}/${mark.member}/${mark.phase}`))
        await store.receipts.mark(message, mark, { latest: mark.phase === "wake-failed" });
  return { conflicts };
}

/**
 * Take what was copied out of the source store (after the copy was read back and checked);
 * `midway` (as `writeContents`'s) is awaited once half the keys are gone.
 */
export async function clearContents(
  store: RosterStore,
  contents: StoreContents,
  midway: () => Promise<void> = async () => undefined,
): Promise<void> {
  const half = Math.floor(contents.spaces.length / 2);
  for (const [index, { space, key }] of contents.spaces.entries()) {
    if (index === half && index > 0) await midway();
    await store.remove(space, key);
  }
  for (const box of contents.mailboxes) {
    for (const entry of box.unread) await store.mail.discard(box.member, entry.name);
    // A mailbox holding mail that could not be carried stays, with that mail, for its recipient.
    if (contents.sealed.some((name) => name.startsWith(`mail/${box.member}/`))) continue;
    await store.mail.retire(box.member, Date.now());
  }
  for (const { message } of contents.receipts) await store.receipts.remove(message);
}
