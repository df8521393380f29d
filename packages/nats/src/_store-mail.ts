// The mailboxes of the NATS store, in the team's bucket: `mailbox.<member>` says a mailbox exists,
// `unread.<member>.<id>` and `read.<member>.<id>` hold a message by its state, `retired.…` the
// unread mail of a retired mailbox, `aside.…` what was set aside. Delivery is an exclusive create
// (one copy per id), acknowledgement a create in `read` then a compare-and-delete in `unread`.
// Keys, not a stream with one durable consumer per member: the roster lists unread mail without
// taking it (any number may look at once), which a JetStream consumer cannot do (README).
import {
  createKey,
  deleteKey,
  MAX_VALUE_BYTES,
  putKey,
  readKey,
  swapKey,
  watchKeys,
} from "./_kv.js";
import { listKeys } from "./_list.js";
import { isRefused, type Refused, type Values } from "./_values.js";

type MailEntry = { id: string; name: string; text: string };
type MailListing = {
  messages: MailEntry[];
  duplicates: string[];
  strays: { name: string; error: string }[];
};

const nameOf = (id: string) => `${id}.json`;
const idOf = (name: string) => (name.endsWith(".json") ? name.slice(0, -5) : undefined);
const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** An id that is a single key token, or a thrown error before it names a key. */
function token(id: string): string {
  if (!ID.test(id))
    throw Object.assign(new Error(`"${id.slice(0, 40)}" is not an id`), { code: "EINVAL" });
  return id;
}

/**
 * What a value of mail may be: the bucket's limit, less room for the headers a write carries (the
 * server counts them in: a mark read at 512 KiB less a few bytes was refused).
 */
const MAIL_VALUE_BYTES = MAX_VALUE_BYTES - 1_024;

/** A number as a person reads it: 393,216. */
const counted = (bytes: number) => bytes.toLocaleString("en-US");

/**
 * Whether mail sealed as `sealed` and marked read as `marked` (the larger: it holds the sealed
 * value whole) fits in a value; else the error the send says, with the real limit for a body as
 * JSON: sealing writes the message as base64 (4 bytes for 3) under two signed headers, so a 64 KiB
 * body whose characters JSON escapes (a control character is 6 bytes) can be over.
 */
function tooLarge(text: string, marked: string): Error | undefined {
  const size = Buffer.byteLength(marked);
  if (size <= MAIL_VALUE_BYTES) return undefined;
  const json = Buffer.byteLength(text);
  const box = marked.slice(marked.lastIndexOf("\n") + 1).length;
  const overhead = size - box;
  // The box is the message and 28 bytes (a nonce and a tag), as base64.
  const fits = Math.floor((MAIL_VALUE_BYTES - overhead) / 4) * 3 - 28;
  let body = 0;
  try {
    body = Buffer.byteLength(JSON.stringify((JSON.parse(text) as { body?: unknown }).body ?? ""));
  } catch {}
  const bodyFits = fits - (json - body);
  return Object.assign(
    new Error(
      `the message is too large for NATS once sealed (${counted(size)} bytes, over the ${counted(MAIL_VALUE_BYTES)} mail may be): it fits with a body of at most ${counted(bodyFits)} bytes as JSON (a control character is 6 bytes there, a quote or a backslash 2); this one is ${counted(body)}`,
    ),
    { code: "E2BIG" },
  );
}

/**
 * The mail of the store over `kept` (the bucket, with the member's trust): delivered sealed to
 * its recipient and signed by its sender, marked read by its recipient. Mail this member's key
 * does not open (another member's) is neither listed nor set aside; mail refused is a stray.
 */
export function natsMail(kept: Values) {
  const { bucket, trust } = kept;
  const key = (state: string, member: string, id: string) =>
    `${state}.${token(member)}.${token(id)}`;
  const idOfKey = (full: string) => full.split(".")[2] ?? "";
  const checked = async (state: string, member: string) => {
    const listed = await kept.list(`${state}.${token(member)}.`);
    return {
      entries: listed.entries.map((entry) => ({ ...entry, id: idOfKey(entry.key) })),
      refused: listed.refused.map((each) => ({ ...each, id: idOfKey(each.key) })),
    };
  };
  /** Mail refused for a reason of its own (not merely sealed to another member): a stray. */
  const strays = (refused: (Refused & { id: string })[]) =>
    refused
      .filter((each) => !each.notMine)
      .map((each) => ({ name: nameOf(each.id), error: each.error }));
  const listing = async (state: "unread" | "read", member: string): Promise<MailListing> => {
    // Both listed at once: the read mail says which unread mail was read already.
    const [{ entries, refused }, marked] = await Promise.all([
      checked(state, member),
      state === "unread" ? checked("read", member) : undefined,
    ]);
    const read = new Set(marked?.entries.map((entry) => entry.id));
    // Marked read by a key that may not (a teammate's forged ack): still unread, and shown.
    const forged = marked?.refused.filter((each) => each.stillUnread !== undefined) ?? [];
    const listed = new Set(entries.map((entry) => entry.id));
    return {
      messages: [
        ...entries
          .filter((entry) => !read.has(entry.id))
          .map((entry) => ({ id: entry.id, name: nameOf(entry.id), text: entry.value })),
        ...forged
          .filter((each) => !listed.has(each.id))
          .map((each) => ({ id: each.id, name: nameOf(each.id), text: each.stillUnread ?? "" })),
      ],
      duplicates: entries.filter((entry) => read.has(entry.id)).map((entry) => nameOf(entry.id)),
      strays: strays(refused),
    };
  };
  /** Mail marked read by another key, marked again by this member (its ack): whether it was. */
  const markedByOther = async (member: string, id: string): Promise<boolean> => {
    const entry = await readKey(bucket, key("read", member, id));
    const checkedEntry = entry && (await kept.check(entry));
    if (!entry || !trust || !isRefused(checkedEntry) || checkedEntry.stillUnread === undefined)
      return false;
    const marked = trust.remark(entry.key, entry.value);
    return marked !== undefined && (await swapKey(bucket, entry.key, marked, entry.revision)).ok;
  };
  const idsIn = async (state: string, member: string) =>
    (await listKeys(bucket, `${state}.${token(member)}.`)).map((entry) => ({
      ...entry,
      id: idOfKey(entry.key),
    }));
  return {
    async ensure(member: string): Promise<void> {
      // A join's first write: the member is bound to its key here, unless it is bound already.
      await trust?.bind(token(member));
      await createKey(
        bucket,
        `mailbox.${token(member)}`,
        kept.wrap(`mailbox.${member}`, '{"v":1}'),
      );
    },
    async deliver(
      member: string,
      id: string,
      text: string,
      options: { read?: boolean | undefined } = {},
    ): Promise<"delivered" | "duplicate"> {
      // Both asked at once: a delivery is on the way from a send to the recipient's wake.
      const [box, read] = await Promise.all([
        readKey(bucket, `mailbox.${token(member)}`),
        readKey(bucket, key("read", member, id)),
      ]);
      if (!box) throw Object.assign(new Error(`${member} has no mailbox`), { code: "ENOENT" });
      if (read) return "duplicate";
      const sealed = trust ? await trust.seal(key("unread", member, id), member, text) : text;
      const big = trust && tooLarge(text, trust.markRead(key("read", member, id), sealed));
      if (big) throw big;
      if (options.read) {
        if (await readKey(bucket, key("unread", member, id))) return "duplicate";
        const marked = trust ? trust.markRead(key("read", member, id), sealed) : sealed;
        return (await createKey(bucket, key("read", member, id), marked)).ok
          ? "delivered"
          : "duplicate";
      }
      return (await createKey(bucket, key("unread", member, id), sealed)).ok
        ? "delivered"
        : "duplicate";
    },
    unread: (member: string) => listing("unread", member),
    read: (member: string) => listing("read", member),
    async get(member: string, id: string) {
      for (const state of ["unread", "read"] as const) {
        const entry = await kept.read(key(state, member, id));
        if (entry && !isRefused(entry))
          return { id, name: nameOf(id), text: entry.value, read: state === "read" };
      }
      return undefined;
    },
    async ack(member: string, ids: readonly string[]) {
      const acked: string[] = [];
      const missing: string[] = [];
      for (const id of ids) {
        const entry = ID.test(id) ? await readKey(bucket, key("unread", member, id)) : undefined;
        if (!entry && ID.test(id) && (await markedByOther(member, id))) {
          acked.push(id);
          continue;
        }
        if (!entry || isRefused(await kept.check(entry))) {
          missing.push(id);
          continue;
        }
        // Read first, then gone from unread: a crash between leaves a duplicate the roster names.
        const readKeyName = key("read", member, id);
        const marked = trust ? trust.markRead(readKeyName, entry.value) : entry.value;
        await createKey(bucket, readKeyName, marked);
        if ((await deleteKey(bucket, key("unread", member, id), entry.revision)).ok) acked.push(id);
        else missing.push(id);
      }
      return { acked, missing };
    },
    async discard(member: string, name: string, options: { setAside?: boolean } = {}) {
      const id = idOf(name);
      if (id === undefined || !ID.test(id)) return false;
      const entry = await readKey(bucket, key("unread", member, id));
      if (!entry) return false;
      if (options.setAside) await putKey(bucket, key("aside", member, id), entry.value);
      return (await deleteKey(bucket, key("unread", member, id), entry.revision)).ok;
    },
    /** Unread mail of the member's, its own or sealed to it and not openable here. */
    async waiting(member: string) {
      const [box, read] = await Promise.all([checked("unread", member), checked("read", member)]);
      const done = new Set(read.entries.map((entry) => entry.id));
      const entries = [
        ...box.entries,
        ...box.refused.filter((each) => each.notMine).map((each) => ({ ...each.raw, id: each.id })),
      ].filter((entry) => !done.has(entry.id));
      const unread = entries.length;
      const oldest = entries.reduce<number | undefined>(
        (least, entry) => (least === undefined || entry.created < least ? entry.created : least),
        undefined,
      );
      return unread === 0 ? { count: 0 } : { count: unread, oldestAt: oldest };
    },
    async retire(member: string, _now: number) {
      const box = await readKey(bucket, `mailbox.${token(member)}`);
      if (!box) return undefined;
      const unread = await idsIn("unread", member);
      for (const entry of unread) {
        await putKey(bucket, key("retired", member, entry.id), entry.value);
        await deleteKey(bucket, entry.key, entry.revision);
      }
      for (const entry of await idsIn("read", member))
        await deleteKey(bucket, entry.key, entry.revision);
      await deleteKey(bucket, `mailbox.${member}`, box.revision);
      return {
        unread: unread.length,
        where: `retired.${member} in the NATS bucket ${bucket.name}`,
      };
    },
    async list() {
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
        strays: [],
      };
    },
    async clearRetired(before: number) {
      const cleared: string[] = [];
      for (const entry of await listKeys(bucket, "retired."))
        if (entry.created < before && (await deleteKey(bucket, entry.key, entry.revision)).ok)
          cleared.push(entry.key);
      return cleared;
    },
    async watch(member: string, onMail: () => void) {
      return watchKeys(bucket, `unread.${token(member)}.`, (_key, operation) => {
        if (operation === "PUT") onMail();
      });
    },
  };
}
