// The listing of a team's bucket under a prefix: every live entry, whole or thrown, and never a
// value older than one the stream's leader had when the listing began. Owns how a listing is
// read (a consumer on the leader, else the leader key by key); not what a key means.
import {
  AckPolicy,
  type ConsumerInfo,
  DeliverPolicy,
  type JsMsg,
  type StreamInfo,
} from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import { type Bucket, type Entry, MAX_VALUE_BYTES, readKey } from "./_kv.js";
import { stalledOr } from "./_stall.js";

/**
 * How many consumers a listing makes, each placed at random, before it reads from the leader key
 * by key: a consumer costs a few ms, 1,000 reads by key ~100 ms (R3 on loopback).
 */
const PLACEMENTS = 4;
/** How many reads by key a listing read from the leader has in flight at once. */
const LEADER_READS = 64;
/**
 * How long a listing waits for its consumer to be made (ms) before it reads from the leader key
 * by key: a few ms when the peer it is placed on is up; never, within the client's 5 s request
 * timeout, when it is down (nats-server 2.9.10 places it on a peer that is offline too).
 */
const PLACING_MS = 750;

/**
 * Every live entry under `prefix` (`sessions.` → `sessions.*`). Complete or thrown
 * (`EINCOMPLETE`), never partial, and never older than the leader. The ways a listing went wrong,
 * all measured: the library's own history ends at the first idle heartbeat (10 of 21 keys on a
 * three-node cluster with a node restarted); a consumer placed on a replica still catching up
 * sees an old stream (10 of 21 again, and, with every key there, 20 of 20 values older than
 * acknowledged writes in 1 listing in 8: `listing-lag.test.ts`); and a key rewritten during the
 * listing loses its old message, one being kept per key, and comes again after the others, so
 * counting messages returned one key twice and missed another (two hosts' beaters). So the
 * stream's leader names the keys there are; a listing's consumer is read only when it is on the
 * leader's server (nats-server 2.9 places it on any of the stream's peers, at random), and then
 * only until it has seen each key (the newest message of a key wins); one on another server is
 * made again, and after `PLACEMENTS` of them the leader is asked for each key instead. A listing
 * that cannot finish is made again, then thrown.
 */
export async function listKeys(bucket: Bucket, prefix: string, attempts = 5): Promise<Entry[]> {
  const listed = await listKeysUpTo(bucket, prefix, Number.POSITIVE_INFINITY, attempts);
  return listed === "over" ? [] : listed;
}

/**
 * Every key under `prefix` the stream keeps a message of, live or deleted (a delete marker is a
 * message): one question to the leader, no value read. What a listing leaves out as gone.
 */
export async function keysKept(bucket: Bucket, prefix: string): Promise<Set<string>> {
  const info = await bucket.jsm.streams.info(`KV_${bucket.name}`, {
    subjects_filter: `$KV.${bucket.name}.${prefix}>`,
  });
  const start = `$KV.${bucket.name}.`.length;
  return new Set(Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(start)));
}

/**
 * `listKeys`, or `over` when the leader names more than `most` keys under `prefix` (then no value
 * is read): for a listing that only saves reads by key, which a flood must not make cost more.
 */
export async function listKeysUpTo(
  bucket: Bucket,
  prefix: string,
  most: number,
  attempts = 5,
): Promise<Entry[] | "over"> {
  const filter = `$KV.${bucket.name}.${prefix}>`;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const listed = await listOnce(bucket, filter, most);
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
 * Whether the consumer is served by the stream's leader: the server that answered the stream info
 * is the one the consumer's messages come from. A single server names itself in both (or neither);
 * a consumer or a stream that names no server cannot be shown to be on the leader, and is not.
 */
function onLeader(stream: StreamInfo, consumer: ConsumerInfo): boolean {
  const leader = stream.cluster?.leader;
  const server = consumer.cluster?.leader;
  if (stream.cluster === undefined && consumer.cluster === undefined) return true;
  return leader !== undefined && leader !== "" && leader === server;
}

/**
 * One listing; undefined when it cannot finish (a fetch that ends with nothing new). The leader's
 * keys (a stream info) and the consumer are asked at once, two round trips in all: a key written
 * between the two is in the consumer's snapshot or comes after it as a new message, so none is
 * lost. The leader wrote every acknowledged value before acknowledging it, so a consumer on the
 * leader's server answers none older; a consumer elsewhere may (a replica catching up), so its
 * listing is not read: another consumer is made, and after `PLACEMENTS` the leader is asked for
 * each key it named instead. So is it at once when a consumer is not made within `PLACING_MS`
 * (placed on a node that is down: a team on R3 keeps listing with one node of three down).
 */
async function listOnce(
  bucket: Bucket,
  filter: string,
  most: number,
): Promise<Entry[] | "over" | undefined> {
  const stream = `KV_${bucket.name}`;
  for (let placement = 1; ; placement += 1) {
    const [info, created] = await Promise.allSettled([
      bucket.jsm.streams.info(stream, { subjects_filter: filter }),
      placeConsumer(bucket, stream, filter),
    ]);
    if (created.status === "rejected") throw created.reason;
    try {
      if (info.status === "rejected") throw info.reason;
      const subjects = Object.keys(info.value.state.subjects ?? {});
      if (subjects.length === 0) return [];
      if (subjects.length > most) return "over";
      if (created.value === undefined) return await readFromLeader(bucket, subjects);
      if (onLeader(info.value, created.value))
        return await readConsumer(bucket, created.value, subjects);
      if (placement >= PLACEMENTS) return await readFromLeader(bucket, subjects);
    } finally {
      // In the background: nothing a listing answers waits for it.
      if (created.value !== undefined)
        void bucket.jsm.consumers.delete(stream, created.value.name).catch(() => undefined);
    }
  }
}

/**
 * The listing's consumer, or undefined when it is not made within `PLACING_MS`; one made later
 * is deleted then (in the background), and one never made leaves nothing behind.
 */
async function placeConsumer(
  bucket: Bucket,
  stream: string,
  filter: string,
): Promise<ConsumerInfo | undefined> {
  const adding = bucket.jsm.consumers.add(stream, listingConsumer(filter));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), PLACING_MS);
  });
  try {
    const made = await Promise.race([adding, late]);
    if (made === undefined)
      void adding
        .then((consumer) => bucket.jsm.consumers.delete(stream, consumer.name))
        .catch(() => undefined);
    return made;
  } finally {
    clearTimeout(timer);
  }
}

/** The newest message of each subject the consumer delivers, once it has delivered them all. */
async function readConsumer(
  bucket: Bucket,
  created: ConsumerInfo,
  subjects: string[],
): Promise<Entry[] | undefined> {
  const unseen = new Set(subjects);
  const consumer = bucket.js.consumers.getConsumerFromInfo(created);
  const newest = new Map<string, { entry: Entry; gone: boolean }>();
  while (unseen.size > 0) {
    let received = 0;
    try {
      const batch = await consumer.fetch({ max_messages: unseen.size, expires: 2_000 });
      for await (const message of batch) {
        received += 1;
        unseen.delete(message.subject);
        const seen = newest.get(message.subject);
        if (!seen || seen.entry.revision < message.seq)
          newest.set(message.subject, listed(bucket, message));
      }
    } catch (error) {
      // Missed heartbeats on a server that answers no PING either: it stalled.
      throw await stalledOr(bucket.connection, error);
    }
    if (received === 0) return undefined;
  }
  return [...newest.values()].filter((seen) => !seen.gone).map((seen) => seen.entry);
}

/**
 * Each subject the leader named, read by key from the leader (the bucket asks the leader for
 * every read by key), a bounded number at once. A key deleted since is left out; one created
 * since was not there when the listing began.
 */
async function readFromLeader(bucket: Bucket, subjects: string[]): Promise<Entry[]> {
  const keys = subjects.map((subject) => subject.slice(`$KV.${bucket.name}.`.length));
  const entries: (Entry | undefined)[] = new Array(keys.length);
  let next = 0;
  const reader = async () => {
    for (let index = next++; index < keys.length; index = next++)
      entries[index] = await readKey(bucket, keys[index]!);
  };
  await Promise.all(Array.from({ length: Math.min(LEADER_READS, keys.length) }, reader));
  return entries.filter((entry): entry is Entry => entry !== undefined);
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
