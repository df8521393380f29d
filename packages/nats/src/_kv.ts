// The key-value primitives the roster's store is built on, on a team's JetStream KV bucket: an
// exclusive create, a compare-and-swap and a compare-and-delete on a key's revision, a whole put,
// a read by key and a watch (the listing is `_list.ts`). Every value is capped before it is
// written and after it is read: a remote is as hostile as a file in the team folder. Owns the
// bucket's settings; not what a key means.
import {
  type JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
} from "@nats-io/jetstream";
import { type KV, type KvEntry, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";

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
