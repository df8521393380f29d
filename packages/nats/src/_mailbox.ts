// A team's mailboxes on JetStream: one stream holds every member's mail, on subjects
// `<prefix>.<recipient>.<sender>`; each member has one durable consumer on its own subjects, with
// explicit acknowledgement, so mail not acknowledged is delivered again. The sender is the
// subject's last token, which a server configuration can pin to the connection's user (see
// `_server-config.ts`): with per-member credentials it is authentic. Owns the stream and the
// consumers' settings; not what a message means.
import {
  AckPolicy,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";

/** A message body, with its envelope, is at most this large (bytes). */
export const MAX_MAIL_BYTES = 128 * 1024;
/** The team's mail stream holds at most this much (bytes) and this many messages. */
export const MAX_STREAM_BYTES = 256 * 1024 * 1024;
export const MAX_STREAM_MESSAGES = 1_000_000;
/** Mail not acknowledged within this long is delivered again. */
export const ACK_WAIT_MS = 30_000;

export type MailStreamOptions = { replicas?: 1 | 3 | 5 | undefined };

export type Mail = {
  /** The message id the sender gave (the stream's de-duplication id). */
  id: string;
  /** The sending member as the subject names it. */
  sender: string;
  data: string;
  /** The stream sequence: the order mail was stored in. */
  seq: number;
  /** How many times this mail was delivered (1 the first time). */
  deliveries: number;
};

/** Subject tokens carry ids: the same letters as a session id, nothing a wildcard could read. */
const TOKEN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const token = (what: string, value: string) => {
  if (!TOKEN.test(value)) throw Object.assign(new Error(`bad ${what}`), { code: "EINVAL" });
  return value;
};

export class Mailboxes {
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #stream: string;
  readonly #prefix: string;
  /** The messages this process was handed and has not acknowledged, by member and message id. */
  readonly #held = new Map<string, Map<string, JsMsg>>();

  private constructor(js: JetStreamClient, jsm: JetStreamManager, stream: string, prefix: string) {
    this.#js = js;
    this.#jsm = jsm;
    this.#stream = stream;
    this.#prefix = prefix;
  }

  /** Open the team's mail stream, creating it on first use with its limits. */
  static async open(
    connection: NatsConnection,
    names: { mailStream: string; mailPrefix: string },
    options: MailStreamOptions = {},
  ): Promise<Mailboxes> {
    const jsm = await jetstreamManager(connection);
    const config = {
      name: names.mailStream,
      subjects: [`${names.mailPrefix}.>`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      num_replicas: options.replicas ?? 1,
      max_msg_size: MAX_MAIL_BYTES,
      max_bytes: MAX_STREAM_BYTES,
      max_msgs: MAX_STREAM_MESSAGES,
      // Like the bucket's: no rollup, purge or message delete by anyone holding a member's seed.
      allow_rollup_hdrs: false,
      deny_delete: true,
      deny_purge: true,
    };
    await jsm.streams.info(names.mailStream).catch(() => jsm.streams.add(config));
    return new Mailboxes(jetstream(connection), jsm, names.mailStream, names.mailPrefix);
  }

  /** The consumer name of a member's mailbox. */
  #consumer(member: string) {
    return `m-${token("member", member)}`;
  }

  /** Make the member's durable consumer (idempotent): its mail from the start of the stream. */
  async ensure(member: string): Promise<void> {
    const name = this.#consumer(member);
    await this.#jsm.consumers.info(this.#stream, name).catch(() =>
      this.#jsm.consumers.add(this.#stream, {
        durable_name: name,
        filter_subject: `${this.#prefix}.${member}.*`,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: ACK_WAIT_MS * 1_000_000,
        max_deliver: -1,
      }),
    );
  }

  /**
   * Store a message for `recipient`. Answered only once the server stored it (replicated, in a
   * cluster): `duplicate` when a message with this id was stored already (in the stream's window).
   */
  async append(recipient: string, sender: string, id: string, data: string) {
    const bytes = new TextEncoder().encode(data);
    if (bytes.length > MAX_MAIL_BYTES)
      throw Object.assign(new Error(`mail of ${bytes.length} bytes is over ${MAX_MAIL_BYTES}`), {
        code: "EFBIG",
      });
    const subject = `${this.#prefix}.${token("recipient", recipient)}.${token("sender", sender)}`;
    const ack = await this.#js.publish(subject, bytes, { msgID: token("message id", id) });
    return { seq: ack.seq, duplicate: ack.duplicate };
  }

  /**
   * The member's mail not yet acknowledged, oldest first (up to `max`). What this process was
   * handed stays held here for `ack`; the server delivers it again after ACK_WAIT_MS otherwise.
   */
  async unread(member: string, max = 256): Promise<Mail[]> {
    const consumer = await this.#js.consumers.get(this.#stream, this.#consumer(member));
    const held = this.#held.get(member) ?? new Map<string, JsMsg>();
    this.#held.set(member, held);
    // Ask for as many as are waiting, so the fetch ends when they came rather than at its expiry
    // (it waits the second out only for mail another process holds unacknowledged).
    const info = await consumer.info();
    const waiting = Math.min(info.num_pending + info.num_ack_pending - held.size, max - held.size);
    if (waiting > 0) {
      const batch = await consumer.fetch({ max_messages: waiting, expires: 1_000 });
      for await (const message of batch) {
        const id = message.headers?.get("Nats-Msg-Id") || `seq-${message.seq}`;
        held.set(id, message);
      }
    }
    return [...held.entries()]
      .map(([id, message]) => ({
        id,
        sender: message.subject.slice(message.subject.lastIndexOf(".") + 1),
        data: new TextDecoder().decode(message.data),
        seq: message.seq,
        deliveries: message.info.deliveryCount,
      }))
      .sort((left, right) => left.seq - right.seq);
  }

  /** Acknowledge mail this process was handed: it is not delivered again. `missing`: not held. */
  async ack(member: string, ids: readonly string[]) {
    const held = this.#held.get(member) ?? new Map<string, JsMsg>();
    const acked: string[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const message = held.get(id);
      if (!message) {
        missing.push(id);
        continue;
      }
      // ackAck waits for the server's word: an acknowledgement reported is one stored.
      if (await message.ackAck()) {
        acked.push(id);
        held.delete(id);
      } else missing.push(id);
    }
    return { acked, missing };
  }

  /** Give back what this process holds and did not acknowledge: delivered again at once. */
  release(member: string): void {
    for (const message of this.#held.get(member)?.values() ?? []) message.nak();
    this.#held.delete(member);
  }

  /** How many of the member's messages are not acknowledged (delivered or not). */
  async count(member: string): Promise<number> {
    const info = await this.#jsm.consumers.info(this.#stream, this.#consumer(member));
    return info.num_pending + info.num_ack_pending;
  }

  /**
   * Call `onMail` for each message stored for `member` from now on: the wake signal. It reads
   * without acknowledging (an ordered consumer of its own), so the mailbox is left as it is.
   */
  async watch(member: string, onMail: (sender: string) => void): Promise<{ stop(): void }> {
    const consumer = await this.#js.consumers.get(this.#stream, {
      // One subject as a string: a list needs server 2.10, Debian's is 2.9.
      filter_subjects: `${this.#prefix}.${token("member", member)}.*`,
      deliver_policy: DeliverPolicy.New,
    });
    const messages = await consumer.consume();
    void (async () => {
      for await (const message of messages)
        onMail(message.subject.slice(message.subject.lastIndexOf(".") + 1));
    })();
    return { stop: () => void messages.stop() };
  }
}
