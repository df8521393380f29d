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
import { headers, type NatsConnection } from "@nats-io/transport-node";
import {
  BUCKET_FIX,
  bucketDifferences,
  bucketStreamConfig,
  MAX_BUCKET_BYTES,
  MAX_VALUE_BYTES,
} from "./_bucket-settings.js";

export { MAX_BUCKET_BYTES, MAX_VALUE_BYTES };

export type BucketOptions = {
  /** Copies kept by a cluster: 1 on one server, 3 in a three-node cluster; compared when given. */
  replicas?: 1 | 3 | 5 | undefined;
  /**
   * Make the bucket when it is missing (the first open with credentials that may: the team's
   * operator's, or a server without per-member permissions); a member's is refused, saying so.
   */
  create?: boolean | undefined;
  /** `create`, and put the team's settings back on a bucket that differs (`muster nats init`). */
  fix?: boolean | undefined;
};

/** The answer to a conditional write: `conflict` when the key was not as expected. */
export type Conditional = { ok: true; revision: number } | { ok: false; reason: "conflict" };

/** A key's value; `created`: when it was written (ms), as the server saw it. */
export type Entry = { key: string; value: string; revision: number; created: number };

/**
 * A team's bucket: the library's KV, the stream under it for reads the KV does not do whole, and
 * the connection they are on (what a failure on it means: `_stall.ts`).
 */
export type Bucket = {
  kv: KV;
  js: JetStreamClient;
  jsm: JetStreamManager;
  name: string;
  connection: NatsConnection;
};

const refused = (message: string) =>
  Object.assign(new Error(message), { code: "EBUCKET", fix: BUCKET_FIX });

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Open the team's bucket. Its stream must be there with the team's settings
 * (`bucketStreamConfig`): one missing (unless `create`), or made with other settings (unless
 * `fix`, the operator's open, which puts them back), is refused (`EBUCKET`, saying what to run).
 */
export async function openBucket(
  connection: NatsConnection,
  name: string,
  options: BucketOptions = {},
): Promise<Bucket> {
  const jsm = await jetstreamManager(connection);
  const expected = bucketStreamConfig(name, options.replicas ?? 1);
  const stream = `KV_${name}`;
  const info = await jsm.streams.info(stream).catch((error: unknown) => {
    if (/not found/i.test(messageOf(error))) return undefined;
    throw error;
  });
  if (!info) {
    if (!options.fix && !options.create)
      throw refused(`the team's NATS bucket ${name} is not made yet: ${BUCKET_FIX}`);
    await jsm.streams.add(expected).catch((error: unknown) => {
      throw refused(
        `the team's NATS bucket ${name} is not made yet, and these credentials may not make it (${messageOf(error)}): ${BUCKET_FIX}`,
      );
    });
  } else {
    const differences = bucketDifferences(info.config, expected, options.replicas !== undefined);
    if (differences.length > 0 && !options.fix)
      throw refused(
        `the NATS bucket ${name} was made with other settings (${differences.join("; ")}): ${BUCKET_FIX}`,
      );
    if (differences.length > 0)
      await jsm.streams
        .update(stream, {
          ...info.config,
          ...expected,
          num_replicas: options.replicas ?? info.config.num_replicas,
        })
        .catch((error: unknown) => {
          throw refused(
            `cannot put the team's settings on the NATS bucket ${name}: ${messageOf(error)}`,
          );
        });
  }
  const kv = await new Kvm(connection).open(name, { allow_direct: false });
  return { kv, js: jetstream(connection), jsm, name, connection };
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

/**
 * Compare-and-delete `key` at `revision`, the delete marker carrying `body` (a signed note of who
 * deleted it): a delete as the KV writes one (`KV-Operation: DEL`), so every reader sees the key
 * gone, and whoever finds it gone can ask who (`lastDelete`).
 */
export async function deleteKeyNoted(
  bucket: Bucket,
  key: string,
  revision: number,
  body: string,
): Promise<Conditional> {
  const marker = headers();
  marker.set("KV-Operation", "DEL");
  try {
    await bucket.js.publish(`$KV.${bucket.name}.${key}`, checked(body), {
      headers: marker,
      expect: { lastSubjectSequence: revision },
    });
    return { ok: true, revision };
  } catch (error) {
    if (isConflict(error)) return { ok: false, reason: "conflict" };
    throw error;
  }
}

/**
 * The delete marker `key` ends in, from the stream's leader: its body (empty for a plain delete)
 * and its revision; undefined when the key was never written or its last message is a value.
 */
export async function lastDelete(
  bucket: Bucket,
  key: string,
): Promise<{ body: string; revision: number } | undefined> {
  const message = await bucket.jsm.streams
    .getMessage(`KV_${bucket.name}`, { last_by_subj: `$KV.${bucket.name}.${key}` })
    .catch(() => null);
  const operation = message?.header?.get("KV-Operation");
  if (!message || (operation !== "DEL" && operation !== "PURGE")) return undefined;
  return { body: new TextDecoder().decode(message.data), revision: message.seq };
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
