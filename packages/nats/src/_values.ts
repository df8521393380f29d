// The bucket as the NATS store reads and writes it: every value written wrapped by the member's
// trust (signed, mail sealed), every value read unwrapped and checked, a refused one named apart
// with why. Without a trust (a store opened with no key, as in the primitives' own tests) values
// are kept as they are.
import { bounded, boundFor } from "./_bound.js";
import { shortKey } from "./_envelope.js";
import { type Bucket, type Entry, readKey } from "./_kv.js";
import { listKeys } from "./_list.js";
import type { Trust } from "./_trust.js";

/**
 * How many values a listing of the records or labels has before their bindings are listed (one
 * listing, a few round trips) rather than read by key (one round trip each, one after another).
 */
const FEW = 8;
/** How many listed values are checked at once. */
const AT_ONCE = 32;

export type Refused = {
  key: string;
  error: string;
  notMine: boolean;
  raw: Entry;
  /** Mail marked read by a key that may not: still unread, this its text. */
  stillUnread?: string | undefined;
};
/** An entry accepted: its text unwrapped, and `raw`, the value as kept. */
export type Checked = Entry & { raw: string };

export function values(bucket: Bucket, trust: Trust | undefined) {
  const unwrap = async (entry: Entry): Promise<Checked | Refused> => {
    if (!trust) return { ...entry, raw: entry.value };
    const opened = await trust.unwrap(entry.key, entry.value);
    return opened.ok
      ? { ...entry, value: opened.text, raw: entry.value }
      : {
          key: entry.key,
          error: opened.error,
          notMine: opened.notMine ?? false,
          raw: entry,
          stillUnread: opened.stillUnread,
        };
  };
  /**
   * Every entry under `prefix`, at most the space's bound of each key's (with a trust: without
   * one, nothing says who wrote what); what is skipped is said once per key and space.
   */
  const listBounded = async (prefix: string): Promise<Entry[]> => {
    const listing = listKeys(bucket, prefix);
    if (trust && prefix === "sessions.") trust.sawRecords(listing);
    const listed = await listing;
    if (!trust) return listed;
    // A member's read mail is marked by its own key: all of it is the member's, never a flood.
    const [state, member] = prefix.split(".");
    const own = state === "read" && member ? (await trust.boundTo(member))?.sign : undefined;
    const { kept, skipped } = bounded(listed, boundFor(prefix), own);
    for (const { signer, count, bound } of skipped)
      trust.note(
        `${prefix}*:${signer ?? "-"}`,
        `skipped ${count} keys under ${prefix} in ${bucket.name}: written by ${signer ? shortKey(signer) : "no member's key"}, over the bound of ${bound} one key may have there (its oldest ${bound} are read)`,
      );
    return kept;
  };
  return {
    bucket,
    trust,
    listBounded,
    /** An entry as read, checked. */
    check: unwrap,
    /** The value this member writes at `key`. */
    wrap: (key: string, text: string) => (trust ? trust.wrap(key, text) : text),
    /** The entry at `key`, checked; a refused one as such. */
    async read(key: string): Promise<Checked | Refused | undefined> {
      const entry = await readKey(bucket, key);
      return entry && unwrap(entry);
    },
    /**
     * Every entry under `prefix`, checked: the accepted, and the refused apart. A listing of more
     * records or labels than a few has their members' bindings listed too, not read one by one.
     */
    async list(prefix: string): Promise<{ entries: Checked[]; refused: Refused[] }> {
      const entries: Checked[] = [];
      const refused: Refused[] = [];
      const listed = await listBounded(prefix);
      if (listed.length > FEW && (prefix === "sessions." || prefix === "labels."))
        trust?.listBindings();
      // Checked a few at once: a value whose member's binding the listing lacks waits for a read
      // by key, and 64 junk records a key were 64 round trips in a row.
      for (let first = 0; first < listed.length; first += AT_ONCE)
        for (const checked of await Promise.all(listed.slice(first, first + AT_ONCE).map(unwrap)))
          if ("error" in checked) refused.push(checked);
          else entries.push(checked);
      return { entries, refused };
    },
  };
}

export type Values = ReturnType<typeof values>;
export const isRefused = (entry: Entry | Refused | undefined): entry is Refused =>
  entry !== undefined && "error" in entry;
