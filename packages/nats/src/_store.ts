// The roster's store on NATS JetStream: the team's KV bucket keeps every keyed space (records,
// claims, the board, locks), the mailboxes and the receipts. `create` is the bucket's exclusive
// create, a version is a key's revision, so compare-and-swap and compare-and-delete are one step
// each (no lock, no fence gap). A store keeps values and decides no rule; what it hands back is
// parsed by the roster as hostile. Shaped as the roster's `RosterStore` (matched structurally).
import {
  type Bucket,
  createKey,
  deleteKey,
  deleteKeyNoted,
  putKey,
  readKey,
  swapKey,
} from "./_kv.js";
import { natsMail } from "./_store-mail.js";
import { natsReceipts } from "./_store-receipts.js";
import type { Trust } from "./_trust.js";
import { isRefused, type Values, values } from "./_values.js";

export type Stored = { text: string; version: string };
export type Listed = { key: string; name: string; stored: Stored };
export type Listing = {
  entries: Listed[];
  unreadable: { key: string; name: string; error: string }[];
  strays: string[];
};

/**
 * A roster key in the bucket: `.` separates a key's tokens there, so the roster's dots (a key
 * may hold `..` or end in one) become `=`, which no roster key holds.
 */
export const encodeKey = (key: string) => key.replaceAll(".", "=");
export const decodeKey = (key: string) => key.replaceAll("=", ".");

const stored = (entry: { value: string; revision: number }): Stored => ({
  text: entry.value,
  version: String(entry.revision),
});

/**
 * When each key a listing just saw was written: `writtenAt` of a listed key (the roster asks it
 * of every record it cannot read) answered without a round trip per key (a flood of junk records
 * otherwise cost one each, one after another).
 */
function writtenCache(bucket: Bucket) {
  const seen = new Map<string, { at: number; created: number }>();
  const SEEN_MS = 2_000;
  return {
    remember(entries: readonly { key: string; created: number }[]) {
      if (seen.size > 200_000) seen.clear();
      const at = Date.now();
      for (const entry of entries) seen.set(entry.key, { at, created: entry.created });
    },
    async writtenAt(full: string): Promise<number | undefined> {
      const known = seen.get(full);
      if (known && Date.now() - known.at <= SEEN_MS) return known.created;
      return (await readKey(bucket, full))?.created;
    },
  };
}

/** Every entry of `space`, checked: the accepted, and the refused as unreadable entries. */
async function listSpace(
  kept: Values,
  written: ReturnType<typeof writtenCache>,
  space: string,
): Promise<Listing> {
  const { entries, refused } = await kept.list(`${space}.`);
  written.remember(entries);
  written.remember(refused.map((each) => each.raw));
  const keyOf = (full: string) => decodeKey(full.slice(space.length + 1));
  return {
    entries: entries.map((entry) => {
      const key = keyOf(entry.key);
      return { key, name: `${space}/${key}`, stored: stored(entry) };
    }),
    unreadable: refused.map((each) => ({
      key: keyOf(each.key),
      name: `${space}/${keyOf(each.key)}`,
      error: each.error,
    })),
    strays: [],
  };
}

/** Set the value at `full` aside (a copy under `quarantine.`, then gone) when `isJunk` says so. */
async function setAside(
  kept: Values,
  space: string,
  key: string,
  isJunk: (text: string | undefined) => boolean,
): Promise<boolean> {
  const { bucket } = kept;
  const full = `${space}.${encodeKey(key)}`;
  const entry = await readKey(bucket, full);
  if (!entry) return false;
  const checked = await kept.check(entry);
  if (!isJunk(isRefused(checked) ? undefined : checked.value)) return false;
  await putKey(bucket, `quarantine.${space}.${encodeKey(key)}.${entry.revision}`, entry.value);
  return (await deleteSigned(kept, full, entry.revision)).ok;
}

/** Delete `full` at `revision`, the delete signed by this member's key (when it has one). */
const deleteSigned = (kept: Values, full: string, revision: number) =>
  kept.trust
    ? deleteKeyNoted(kept.bucket, full, revision, kept.trust.tombstone(full, revision))
    : deleteKey(kept.bucket, full, revision);

/** Replace the value at `full` if it is still at revision `expected`. */
async function replace(kept: Values, full: string, text: string, expected: string) {
  const revision = Number(expected);
  if (!Number.isSafeInteger(revision)) return { ok: false as const, reason: "changed" as const };
  const swapped = await swapKey(kept.bucket, full, kept.wrap(full, text), revision);
  return swapped.ok
    ? { ok: true as const, stored: { text, version: String(swapped.revision) } }
    : { ok: false as const, reason: "changed" as const };
}

/**
 * The store over an open bucket; `name` is the team's name, for messages; `servers` the URLs it
 * was reached by (with the bucket, the store's address: one team name may live on two servers);
 * `trust` signs what this member writes and checks what it reads (`_trust.ts`). A value refused
 * is handed back as no value of its space: an unreadable entry in a listing, empty text by key (a
 * junk claim or record the roster sets aside), named in `refused()`.
 */
export function natsStore(
  bucket: Bucket,
  name: string,
  servers: readonly string[] = [],
  trust?: Trust,
) {
  const at = (space: string, key: string) => `${space}.${encodeKey(key)}`;
  const kept = values(bucket, trust);
  const written = writtenCache(bucket);
  return {
    kind: "nats" as const,
    where: `the NATS team ${name}`,
    // With the person's key: what is per host is per person too (the beater beats only the
    // records its key may sign, so two people on one host each run their own).
    address: `nats ${[...servers].sort().join(",")} ${bucket.name}${trust ? ` ${trust.keys.sign}` : ""}`,
    dir: undefined,
    async ready(): Promise<{ ok: true } | { ok: false; error: string }> {
      const marker = await readKey(bucket, "meta.team");
      return marker
        ? { ok: true }
        : { ok: false, error: `the NATS bucket ${bucket.name} has no muster team marker` };
    },
    /** What this store's trust refused, one line each (doctor and status show them). */
    refused: (): readonly string[] => trust?.refusals ?? [],
    async get(space: string, key: string): Promise<Stored | undefined> {
      const entry = await kept.read(at(space, key));
      if (isRefused(entry)) return { text: "", version: String(entry.raw.revision) };
      // A label's claim found gone: deleted by muster (signed), or by a raw delete (said).
      if (!entry && space === "labels") await trust?.noticeDeleted(at(space, key));
      return entry ? stored(entry) : undefined;
    },
    async create(space: string, key: string, text: string): Promise<Stored | undefined> {
      const full = at(space, key);
      if (space === "sessions") await trust?.own(key);
      const created = await createKey(bucket, full, kept.wrap(full, text));
      return created.ok ? { text, version: String(created.revision) } : undefined;
    },
    async put(space: string, key: string, text: string): Promise<Stored> {
      const full = at(space, key);
      if (space === "sessions") await trust?.own(key);
      return { text, version: String(await putKey(bucket, full, kept.wrap(full, text))) };
    },
    async replace(space: string, key: string, text: string, expected: string) {
      if (space === "sessions" && Number.isSafeInteger(Number(expected))) await trust?.own(key);
      return replace(kept, at(space, key), text, expected);
    },
    async remove(space: string, key: string, expected?: string): Promise<boolean> {
      const full = at(space, key);
      const revision =
        expected === undefined ? (await readKey(bucket, full))?.revision : Number(expected);
      if (revision === undefined || !Number.isSafeInteger(revision)) return false;
      return (await deleteSigned(kept, full, revision)).ok;
    },
    setAside: (space: string, key: string, isJunk: (text: string | undefined) => boolean) =>
      setAside(kept, space, key, isJunk),
    list: (space: string): Promise<Listing> => listSpace(kept, written, space),
    writtenAt: (space: string, key: string) => written.writtenAt(at(space, key)),
    mail: natsMail(kept),
    receipts: natsReceipts(kept),
    /** Nothing to sweep: no write leaves a temp value behind. */
    async sweep(): Promise<{ cleared: string[]; warnings: string[] }> {
      return { cleared: [], warnings: [] };
    },
  };
}

export type NatsStore = ReturnType<typeof natsStore>;
