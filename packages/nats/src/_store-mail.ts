// The mailboxes of the NATS store, in the team's bucket: `mailbox.<member>` says a mailbox exists,
// `unread.<member>.<id>` and `read.<member>.<id>` hold a message by its state, `retired.…` the
// unread mail of a retired mailbox, `aside.…` what was set aside. Delivery is an exclusive create
// (one copy per id), acknowledgement a create in `read` then a compare-and-delete in `unread`.
// Keys, not a stream with one durable consumer per member: the roster lists unread mail without
// taking it (any number may look at once), which a JetStream consumer cannot do (README).
import { type Bucket, createKey, deleteKey, putKey, readKey, watchKeys } from "./_kv.js";
import { listKeys } from "./_list.js";

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

export function natsMail(bucket: Bucket) {
  const key = (state: string, member: string, id: string) =>
    `${state}.${token(member)}.${token(id)}`;
  const idsIn = async (state: string, member: string) =>
    (await listKeys(bucket, `${state}.${token(member)}.`)).map((entry) => ({
      ...entry,
      id: entry.key.slice(`${state}.${member}.`.length),
    }));
  const listing = async (state: "unread" | "read", member: string): Promise<MailListing> => {
    const entries = await idsIn(state, member);
    const read =
      state === "unread"
        ? new Set((await idsIn("read", member)).map((entry) => entry.id))
        : new Set<string>();
    return {
      messages: entries
        .filter((entry) => !read.has(entry.id))
        .map((entry) => ({ id: entry.id, name: nameOf(entry.id), text: entry.value })),
      duplicates: entries.filter((entry) => read.has(entry.id)).map((entry) => nameOf(entry.id)),
      strays: [],
    };
  };
  return {
    async ensure(member: string): Promise<void> {
      await createKey(bucket, `mailbox.${token(member)}`, JSON.stringify({ v: 1 }));
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
      if (options.read) {
        if (await readKey(bucket, key("unread", member, id))) return "duplicate";
        return (await createKey(bucket, key("read", member, id), text)).ok
          ? "delivered"
          : "duplicate";
      }
      return (await createKey(bucket, key("unread", member, id), text)).ok
        ? "delivered"
        : "duplicate";
    },
    unread: (member: string) => listing("unread", member),
    read: (member: string) => listing("read", member),
    async get(member: string, id: string) {
      for (const state of ["unread", "read"] as const) {
        const entry = await readKey(bucket, key(state, member, id));
        if (entry) return { id, name: nameOf(id), text: entry.value, read: state === "read" };
      }
      return undefined;
    },
    async ack(member: string, ids: readonly string[]) {
      const acked: string[] = [];
      const missing: string[] = [];
      for (const id of ids) {
        const entry = ID.test(id) ? await readKey(bucket, key("unread", member, id)) : undefined;
        if (!entry) {
          missing.push(id);
          continue;
        }
        // Read first, then gone from unread: a crash between leaves a duplicate the roster names.
        await createKey(bucket, key("read", member, id), entry.value);
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
    async waiting(member: string) {
      const unread = (await listing("unread", member)).messages.length;
      const entries = await idsIn("unread", member);
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
