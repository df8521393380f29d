// The mailboxes of the NATS store, in the team's bucket: `mailbox.<member>` says a mailbox exists,
// `unread.<member>.<id>` and `read.<member>.<id>` hold a message by its state, `retired.…` the
// unread mail of a retired mailbox, `aside.…` what was set aside. Delivery is an exclusive create
// (one copy per id), acknowledgement a create in `read` then a compare-and-delete in `unread`.
// Keys, not a stream with one durable consumer per member: the roster lists unread mail without
// taking it (any number may look at once), which a JetStream consumer cannot do (README). Reading
// is `_mail-read.ts`; the names and the size limit, `_mail-keys.ts`.
import { type Bucket, createKey, deleteKey, putKey, readKey, watchKeys } from "./_kv.js";
import { listKeys } from "./_list.js";
import { ID, idOf, idOfKey, mailKey, token, tooLarge } from "./_mail-keys.js";
import { getMail, listMail, markedByOther, sealedMail, waitingMail } from "./_mail-read.js";
import { isRefused, type Values } from "./_values.js";

/** Deliver `text` as message `id` to `member`: sealed to it, unread (or, with `read`, read). */
async function deliver(
  kept: Values,
  member: string,
  id: string,
  text: string,
  options: { read?: boolean | undefined },
): Promise<"delivered" | "duplicate"> {
  const { bucket, trust } = kept;
  // Both asked at once: a delivery is on the way from a send to the recipient's wake.
  const [box, read] = await Promise.all([
    readKey(bucket, `mailbox.${token(member)}`),
    readKey(bucket, mailKey("read", member, id)),
  ]);
  if (!box) throw Object.assign(new Error(`${member} has no mailbox`), { code: "ENOENT" });
  if (read) return "duplicate";
  const sealed = trust ? await trust.seal(mailKey("unread", member, id), member, text) : text;
  const big = trust && tooLarge(text, trust.markRead(mailKey("read", member, id), sealed));
  if (big) throw big;
  if (options.read) {
    if (await readKey(bucket, mailKey("unread", member, id))) return "duplicate";
    const marked = trust ? trust.markRead(mailKey("read", member, id), sealed) : sealed;
    return (await createKey(bucket, mailKey("read", member, id), marked)).ok
      ? "delivered"
      : "duplicate";
  }
  return (await createKey(bucket, mailKey("unread", member, id), sealed)).ok
    ? "delivered"
    : "duplicate";
}

/** Mark `ids` read for `member`: read first, then gone from unread, each at its revision. */
async function ack(kept: Values, member: string, ids: readonly string[]) {
  const { bucket, trust } = kept;
  const acked: string[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const entry = ID.test(id) ? await readKey(bucket, mailKey("unread", member, id)) : undefined;
    if (!entry && ID.test(id) && (await markedByOther(kept, member, id))) {
      acked.push(id);
      continue;
    }
    if (!entry || isRefused(await kept.check(entry))) {
      missing.push(id);
      continue;
    }
    // Read first, then gone from unread: a crash between leaves a duplicate the roster names.
    const readKeyName = mailKey("read", member, id);
    const marked = trust ? trust.markRead(readKeyName, entry.value) : entry.value;
    await createKey(bucket, readKeyName, marked);
    if ((await deleteKey(bucket, mailKey("unread", member, id), entry.revision)).ok) acked.push(id);
    else missing.push(id);
  }
  return { acked, missing };
}

/** `member`'s mail in `state`, as kept, each with its id (no trust: retiring moves it whole). */
const idsIn = async (bucket: Bucket, state: string, member: string) =>
  (await listKeys(bucket, `${state}.${token(member)}.`)).map((entry) => ({
    ...entry,
    id: idOfKey(entry.key),
  }));

/** Retire `member`'s mailbox: its unread mail kept under `retired.`, its read mail gone. */
async function retire(bucket: Bucket, member: string) {
  const box = await readKey(bucket, `mailbox.${token(member)}`);
  if (!box) return undefined;
  const unread = await idsIn(bucket, "unread", member);
  for (const entry of unread) {
    await putKey(bucket, mailKey("retired", member, entry.id), entry.value);
    await deleteKey(bucket, entry.key, entry.revision);
  }
  for (const entry of await idsIn(bucket, "read", member))
    await deleteKey(bucket, entry.key, entry.revision);
  await deleteKey(bucket, `mailbox.${member}`, box.revision);
  return { unread: unread.length, where: `retired.${member} in the NATS bucket ${bucket.name}` };
}

/** Every mailbox, with when its mail last changed. */
async function listMailboxes(bucket: Bucket) {
  const changed = new Map<string, number>();
  for (const entry of await listKeys(bucket, "mailbox."))
    changed.set(entry.key.slice(8), entry.created);
  for (const state of ["unread", "read"])
    for (const entry of await listKeys(bucket, `${state}.`)) {
      const member = entry.key.split(".")[1] ?? "";
      const known = changed.get(member);
      if (known !== undefined && entry.created > known) changed.set(member, entry.created);
    }
  return {
    mailboxes: [...changed].map(([member, changedAt]) => ({ member, changedAt })),
    strays: [] as string[],
  };
}

/**
 * The mail of the store over `kept` (the bucket, with the member's trust): delivered sealed to
 * its recipient and signed by its sender, marked read by its recipient. Mail this member's key
 * does not open (another member's) is neither listed nor set aside; mail refused is a stray.
 */
export function natsMail(kept: Values) {
  const { bucket, trust } = kept;
  return {
    async ensure(member: string): Promise<void> {
      // A join's first write: the member is bound to its key here, unless it is bound already.
      await trust?.bind(token(member));
      const box = `mailbox.${token(member)}`;
      await createKey(bucket, box, kept.wrap(`mailbox.${member}`, '{"v":1}'));
    },
    deliver: (member: string, id: string, text: string, options: { read?: boolean } = {}) =>
      deliver(kept, member, id, text, options),
    unread: (member: string) => listMail(kept, "unread", member),
    read: (member: string) => listMail(kept, "read", member),
    get: (member: string, id: string) => getMail(kept, member, id),
    ack: (member: string, ids: readonly string[]) => ack(kept, member, ids),
    async discard(member: string, name: string, options: { setAside?: boolean } = {}) {
      const id = idOf(name);
      if (id === undefined || !ID.test(id)) return false;
      const entry = await readKey(bucket, mailKey("unread", member, id));
      if (!entry) return false;
      if (options.setAside) await putKey(bucket, mailKey("aside", member, id), entry.value);
      return (await deleteKey(bucket, mailKey("unread", member, id), entry.revision)).ok;
    },
    waiting: (member: string) => waitingMail(kept, member),
    sealed: (member: string) => sealedMail(kept, member),
    retire: (member: string, _now: number) => retire(bucket, member),
    list: () => listMailboxes(bucket),
    async clearRetired(before: number) {
      const cleared: string[] = [];
      for (const entry of await listKeys(bucket, "retired."))
        if (entry.created < before && (await deleteKey(bucket, entry.key, entry.revision)).ok)
          cleared.push(entry.key);
      return cleared;
    },
    watch: (member: string, onMail: () => void) =>
      watchKeys(bucket, `unread.${token(member)}.`, (_key, operation) => {
        if (operation === "PUT") onMail();
      }),
  };
}
