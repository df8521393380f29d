// The key-value primitives the roster's store is built on, on a team's JetStream KV bucket: an
// exclusive create, a compare-and-swap and a compare-and-delete on a key's revision, a whole put,
// a list and a watch. Every value is capped before it is written and after it is read: a remote
// is as hostile as a file in the team folder. Owns the bucket's settings; not what a key means.
import {
  AckPolicy,
  DeliverPolicy,
  type JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
} from "@nats-io/jetstream";
import { type KV, type KvEntry, Kvm } from "@nats-io/kv";
import { type NatsConnection, nanos } from "@nats-io/transport-node";

/**
 * No value in a team's bucket is larger (bytes): a record, a claim, a card, a lease, a message. A
 * 64 KiB body is at most 384 KiB as JSON (every control character escaped to six), so 512 KiB.
 */
export const MAX_VALUE_BYTES = 512 * 1024;
/** A team's bucket holds at most this much (bytes): a flood fills it, not the server's disk. */
export const MAX_BUCKET_BYTES = 128 * 1024 * 1024;

export type BucketOptions = {
  /** Copies kept by a cluster: 1 on one server, 3 in a three-node cluster. */
  replicas?: 1 | 3 | 5 | undefined;
};

/** The answer to a conditional write: `conflict` when the key was not as expected. */
export type Conditional = { ok: true; revision: number } | { ok: false; reason: "conflict" };

/** A key's value; `created`: when it was written (ms), as the server saw it. */
export type Entry = { key: string; value: string; revision: number; created: number };

/** A team's bucket: the library's KV, and the stream under it for reads the KV does not do whole. */
export type Bucket = { kv: KV; js: JetStreamClient; jsm: JetStreamManager; name: string };

/** Open the team's bucket, creating it on first use with the team's limits. */
export async function openBucket(
  connection: NatsConnection,
  name: string,
  options: BucketOptions = {},
): Promise<Bucket> {
  const kv = await new Kvm(connection).create(name, {
    history: 1,
    replicas: options.replicas ?? 1,
    // Every read by key goes to the stream's leader. A direct get may be answered by any replica,
    // and one catching up after a restart answers with what it has: a join that reads back the
    // claim it just wrote then saw another and gave up a label it held (the R3 storm, at load).
    // On a bucket made with direct gets allowed, this client still asks the leader.
    allow_direct: false,
    maxValueSize: MAX_VALUE_BYTES,
    max_bytes: MAX_BUCKET_BYTES,
  });
  return { kv, js: jetstream(connection), jsm: await jetstreamManager(connection), name };
}

const utf8Bytes = (text: string) => new TextEncoder().encode(text);

/** The JetStream error codes that mean "the key was not at the revision you named". */
const WRONG_SEQUENCE = 10071;
function isConflict(error: unknown): boolean {
  const code = (error as Partial<JetStreamApiError> | undefined)?.code;
  if (code === WRONG_SEQUENCE) return true;
  const text = error instanceof Error ? error.message : String(error);
  return /wrong last sequence|key exists/i.test(text);
}

function checked(value: string): Uint8Array {
  const bytes = utf8Bytes(value);
  if (bytes.length > MAX_VALUE_BYTES)
    throw Object.assign(
      new Error(`a value of ${bytes.length} bytes is over the limit of ${MAX_VALUE_BYTES}`),
      { code: "EFBIG" },
    );
  return bytes;
}

/** An entry's value, or undefined for a delete marker or a value over the limit. */
function entryValue(entry: KvEntry | null): Entry | undefined {
  if (entry?.operation !== "PUT" || entry.length > MAX_VALUE_BYTES) return undefined;
  return {
    key: entry.key,
    value: entry.string(),
    revision: entry.revision,
    created: entry.created.getTime(),
  };
}

/** Create `key` only if it is absent (or deleted): one of any number of racers wins. */
export async function createKey(bucket: Bucket, key: string, value: string): Promise<Conditional> {
  try {
    return { ok: true, revision: await bucket.kv.create(key, checked(value)) };
  } catch (error) {
    if (isConflict(error)) return { ok: false, reason: "conflict" };
    throw error;
  }
}

/** Replace `key` only if it is still at `revision`: the compare-and-swap. */
export async function swapKey(
  bucket: Bucket,
  key: string,
  value: string,
  revision: number,
): Promise<Conditional> {
  try {
    return { ok: true, revision: await bucket.kv.update(key, checked(value), revision) };
  } catch (error) {
    if (isConflict(error)) return { ok: false, reason: "conflict" };
    throw error;
  }
}

/** Delete `key` only if it is still at `revision`: the compare-and-delete. */
export async function deleteKey(
  bucket: Bucket,
  key: string,
  revision: number,
): Promise<Conditional> {
  try {
    await bucket.kv.delete(key, { previousSeq: revision });
    return { ok: true, revision };
  } catch (error) {
    if (isConflict(error)) return { ok: false, reason: "conflict" };
    throw error;
  }
}

/** Write `key` whole, whatever was there. */
export async function putKey(bucket: Bucket, key: string, value: string): Promise<number> {
  return bucket.kv.put(key, checked(value));
}

export async function readKey(bucket: Bucket, key: string): Promise<Entry | undefined> {
  return entryValue(await bucket.kv.get(key));
}

/**
 * Every live entry under `prefix` (`sessions.` → `sessions.*`), read as one stream of the last
 * value of each key. Complete or thrown (`EINCOMPLETE`), never partial. Three ways it would be
 * partial, all measured: the library's own history ends at the first idle heartbeat (10 of 21
 * keys on a three-node cluster with a node restarted); a consumer placed on a replica still
 * catching up sees an old stream (10 of 21 again); and a key rewritten during the listing (a
 * beater's heartbeats) loses its old message, one being kept per key, and comes again after the
 * others, so counting messages returned one key twice and missed another (two hosts' beaters).
 * So the stream's leader names the keys there are, the listing ends only when it has seen each
 * (the newest message of a key wins), and one that cannot is thrown away and made again.
 */
export async function listKeys(bucket: Bucket, prefix: string, attempts = 5): Promise<Entry[]> {
  const filter = `$KV.${bucket.name}.${prefix}>`;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const listed = await listOnce(bucket, filter);
    if (listed) return listed;
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
  throw Object.assign(new Error(`the bucket ${bucket.name} could not be listed whole`), {
    code: "EINCOMPLETE",
  });
}

/**
 * The consumer one listing reads: the last message of each key under the filter, nothing to
 * acknowledge, in memory on one server, and gone by itself if a listing dies before deleting it.
 */
const listingConsumer = (filter: string) => ({
  filter_subject: filter,
  deliver_policy: DeliverPolicy.LastPerSubject,
  ack_policy: AckPolicy.None,
  max_deliver: 1,
  mem_storage: true,
  num_replicas: 1,
  inactive_threshold: nanos(30_000),
});

/**
 * One listing: the newest message of each key it sees, once it has seen every key the leader
 * names; undefined when it cannot (a fetch that ends with nothing new). The leader's keys (a
 * stream info) and the consumer are asked at once, two round trips in all: a key written between
 * the two is in the consumer's snapshot or comes after it as a new message, so none is lost.
 */
async function listOnce(bucket: Bucket, filter: string): Promise<Entry[] | undefined> {
  const stream = `KV_${bucket.name}`;
  const [info, created] = await Promise.allSettled([
    bucket.jsm.streams.info(stream, { subjects_filter: filter }),
    bucket.jsm.consumers.add(stream, listingConsumer(filter)),
  ]);
  if (created.status === "rejected") throw created.reason;
  try {
    if (info.status === "rejected") throw info.reason;
    const unseen = new Set(Object.keys(info.value.state.subjects ?? {}));
    if (unseen.size === 0) return [];
    const consumer = bucket.js.consumers.getConsumerFromInfo(created.value);
    const newest = new Map<string, { entry: Entry; gone: boolean }>();
    while (unseen.size > 0) {
      let received = 0;
      const batch = await consumer.fetch({ max_messages: unseen.size, expires: 2_000 });
      for await (const message of batch) {
        received += 1;
        unseen.delete(message.subject);
        const seen = newest.get(message.subject);
        if (!seen || seen.entry.revision < message.seq)
          newest.set(message.subject, listed(bucket, message));
      }
      if (received === 0) return undefined;
    }
    return [...newest.values()].filter((seen) => !seen.gone).map((seen) => seen.entry);
  } finally {
    // In the background: nothing a listing answers waits for it.
    void bucket.jsm.consumers.delete(stream, created.value.name).catch(() => undefined);
  }
}

const decoder = new TextDecoder();

/** A listed message as an entry; `gone` for a delete marker or a value over the limit. */
function listed(bucket: Bucket, message: JsMsg): { entry: Entry; gone: boolean } {
  const operation = message.headers?.get("KV-Operation");
  return {
    gone: operation === "DEL" || operation === "PURGE" || message.data.length > MAX_VALUE_BYTES,
    entry: {
      key: message.subject.slice(`$KV.${bucket.name}.`.length),
      value: decoder.decode(message.data),
      revision: message.seq,
      created: Math.floor(message.info.timestampNanos / 1e6),
    },
  };
}

/**
 * Call `onChange` for every change under `prefix` from now on (a wake signal: the key and
 * whether it was written or deleted). `stop()` ends the watch.
 */
export async function watchKeys(
  bucket: Bucket,
  prefix: string,
  onChange: (key: string, operation: "PUT" | "DEL") => void,
): Promise<{ stop(): void }> {
  const watch = await bucket.kv.watch({ key: `${prefix}>`, include: "updates" });
  void (async () => {
    for await (const entry of watch) onChange(entry.key, entry.operation === "PUT" ? "PUT" : "DEL");
  })();
  return { stop: () => watch.stop() };
}
