// Who may write what in a team's bucket, where NATS permissions cannot say it (every member may
// write every key of the bucket): each value is signed by its writer's key and checked on read
// against the key bound to the member it speaks for; mail is sealed to its recipient's key.
//
// A member's keys are bound on join: `keys.<member>` names its signing and sealing keys, signed by
// them, created once. Then a record (`sessions.<member>`), a claim (its holder), an `acknowledged`
// receipt mark (its member), mail (its sender) and mail marked read (its recipient, or its sender
// when shown another way) must be signed by that member's bound key; every other value by some
// member's key. A label's claim is refused when another key's member holding that label has a live
// record (written within `liveForMs`, by the server's clock). A value refused is not handed to the
// roster as what it claims to be, and each refusal is reported once (`refusals`, `onRefused`).
import { bounded, boundFor } from "./_bound.js";
import { type Envelope, envelope, opened, shortKey } from "./_envelope.js";
import type { Keys } from "./_keys.js";
import { type Bucket, createKey, type Entry, readKey } from "./_kv.js";
import { listKeys } from "./_list.js";

export type Bound = { sign: string; seal: string };
/**
 * A value's text, or why it is refused; `notMine`: mail sealed to another member (not refused);
 * `stillUnread`: mail marked read by a key that may not, so still unread (its text).
 */
export type Unwrapped =
  | { ok: true; text: string; signer: string }
  | { ok: false; error: string; notMine?: boolean; stillUnread?: string | undefined };

const CLAIM_SPACES = new Set(["labels", "leases", "wakes", "cards", "spawns", "listeners"]);
const MAIL_STATES = new Set(["unread", "read", "retired", "aside"]);
const decoder = new TextDecoder();
const encoder = new TextEncoder();

const parsed = (text: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};
const field = (value: Record<string, unknown> | undefined, ...path: string[]) => {
  let at: unknown = value;
  for (const step of path)
    at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[step] : undefined;
  return typeof at === "string" ? at : undefined;
};

/** Where a mail value is signed: the same place whether unread, read, retired or set aside. */
export function signedPlace(key: string): string {
  const [state = "", member = "", id = ""] = key.split(".");
  return MAIL_STATES.has(state) ? `mail.${member}.${id}` : key;
}

export type TrustOptions = {
  /** A record younger than this keeps its label from another key (ms; the roster's TTL). */
  liveForMs?: number | undefined;
  onRefused?: ((line: string) => void) | undefined;
};

export function trust(bucket: Bucket, keys: Keys, options: TrustOptions = {}) {
  const liveForMs = options.liveForMs ?? 60 * 60_000;
  const bound = new Map<string, Bound | undefined>();
  const reported = new Set<string>();
  const refusals: string[] = [];
  let records: { at: number; entries: Promise<Entry[]> } | undefined;

  const refuse = (key: string, why: string, notMine = false): Unwrapped => {
    const line = `refused ${key} in ${bucket.name}: it ${why}`;
    if (!reported.has(line)) {
      reported.add(line);
      refusals.push(line);
      options.onRefused?.(line);
    }
    return { ok: false, error: `is refused: it ${why}`, notMine };
  };

  /** The keys bound to `member`, as its own signed binding names them; cached once read. */
  async function boundTo(member: string): Promise<Bound | undefined> {
    if (bound.has(member)) return bound.get(member);
    const entry = await readKey(bucket, `keys.${member}`);
    const envelope = entry && opened(`keys.${member}`, entry.value);
    const value = envelope && !("refused" in envelope) ? parsed(envelope.payload) : undefined;
    const sign = field(value, "sign");
    const seal = field(value, "seal");
    const binding =
      envelope &&
      !("refused" in envelope) &&
      field(value, "member") === member &&
      sign === envelope.signer &&
      seal
        ? { sign, seal }
        : undefined;
    if (binding) bound.set(member, binding);
    return binding;
  }

  /** Whether `signer` may speak for `member`: its bound key, or any key while it has none. */
  async function speaksFor(
    member: string | undefined,
    signer: string,
  ): Promise<string | undefined> {
    if (member === undefined) return undefined;
    const binding = await boundTo(member);
    return binding === undefined || binding.sign === signer
      ? undefined
      : `is signed by ${shortKey(signer)}, not by ${member}'s key ${shortKey(binding.sign)}`;
  }

  /** A live record of another key holding label `label`, if any (listed at most once a second). */
  async function liveHolderOf(label: string, signer: string): Promise<string | undefined> {
    const now = Date.now();
    if (!records || now - records.at > 1_000)
      records = {
        at: now,
        // Bounded as every listing is: a flood of one key's records is not verified here either.
        entries: listKeys(bucket, "sessions.").then(
          (listed) => bounded(listed, boundFor("sessions.")).kept,
        ),
      };
    for (const entry of await records.entries) {
      const member = entry.key.slice("sessions.".length);
      const envelope = opened(entry.key, entry.value);
      if ("refused" in envelope || envelope.signer === signer) continue;
      if ((await speaksFor(member, envelope.signer)) !== undefined) continue;
      const record = parsed(envelope.payload);
      if (field(record, "label")?.toLowerCase() === label && now - entry.created <= liveForMs)
        return `claims the label ${label}, held by ${member} of another key (${shortKey(envelope.signer)}), whose record is live`;
    }
    return undefined;
  }

  /** Why the value at `key` may not be what it says, or undefined when its writer may write it. */
  async function ownership(
    key: string,
    envelope: Envelope,
    text: string,
  ): Promise<string | undefined> {
    const [space = "", second = "", third = "", fourth = ""] = key.split(".");
    if (space === "sessions") return speaksFor(second, envelope.signer);
    if (CLAIM_SPACES.has(space)) {
      const value = parsed(text);
      const wrong = await speaksFor(field(value, "holder") ?? field(value, "id"), envelope.signer);
      if (wrong || space !== "labels") return wrong;
      return liveHolderOf(second.replaceAll("=", ".").toLowerCase(), envelope.signer);
    }
    if (space === "receipt" && fourth === "acknowledged") return speaksFor(third, envelope.signer);
    return undefined;
  }

  /** The text of mail at `key`: unsealed when it is sealed to this member's key. */
  async function openMail(key: string, envelope: Envelope): Promise<Unwrapped> {
    const [state = "", recipient = ""] = key.split(".");
    let sealed = envelope;
    if (state === "read" && envelope.kind === "x") {
      // Delivered mail copied to read/ by a key that may not mark it read: still unread.
      const unread = await openMail(key.replace(/^read\./, "unread."), envelope);
      const refused = refuse(key, "is mail not marked read by its recipient");
      return unread.ok && !refused.ok ? { ...refused, stillUnread: unread.text } : refused;
    }
    if (state === "read") {
      if (envelope.kind !== "r") return refuse(key, "is not marked read by its recipient");
      const inner = opened(signedPlace(key), envelope.payload);
      if ("refused" in inner) return refuse(key, inner.refused);
      const marker = await speaksFor(recipient, envelope.signer);
      if (marker && (await speaksFor(inner.as, envelope.signer))) {
        const unread = await openMail(key.replace(/^read\./, "unread."), inner);
        const refused = refuse(key, "is marked read by neither its recipient nor its sender");
        return unread.ok && !refused.ok ? { ...refused, stillUnread: unread.text } : refused;
      }
      sealed = inner;
    }
    if (sealed.kind !== "x") return refuse(key, "is mail that is not sealed to its recipient");
    const wrongSender = await speaksFor(sealed.as, sealed.signer);
    if (wrongSender) return refuse(key, `is mail ${wrongSender}`);
    const own = await boundTo(recipient);
    if (own?.seal !== keys.seal)
      return { ok: false, error: "is sealed to another member's key", notMine: true };
    const senderSeal = sealed.as === undefined ? undefined : (await boundTo(sealed.as))?.seal;
    const box =
      senderSeal === sealed.sealer || senderSeal === undefined ? sealed.sealer : undefined;
    const bytes =
      box &&
      keys.openFrom(new Uint8Array(Buffer.from(sealed.payload, "base64")), box, signedPlace(key));
    if (!bytes) return refuse(key, "is mail that does not open with its recipient's key");
    const text = decoder.decode(bytes);
    const message = parsed(text);
    if (
      sealed.as !== field(message, "from", "id") &&
      sealed.as !== field(message, "forwardedFrom", "id")
    )
      return refuse(
        key,
        `is mail that says it is from ${field(message, "from", "id") ?? "nobody"} but was sent by ${sealed.as ?? "nobody"}`,
      );
    return { ok: true, text, signer: sealed.signer };
  }

  return {
    keys,
    refusals,
    boundTo,
    /** Say `line` (once for each `what`), as a refusal is said. */
    note(what: string, line: string): void {
      if (reported.has(what)) return;
      reported.add(what);
      refusals.push(line);
      options.onRefused?.(line);
    },
    /**
     * Bind `member` to this process's keys unless it is bound already (a join's, or a migration's
     * mailbox); another key's binding is kept, and with `report` said.
     */
    async bind(member: string, options: { report?: boolean } = {}): Promise<void> {
      let binding = await boundTo(member);
      if (!binding) {
        const text = JSON.stringify({ v: 1, member, sign: keys.sign, seal: keys.seal });
        await createKey(bucket, `keys.${member}`, envelope(keys, `keys.${member}`, "s", text));
        binding = await boundTo(member);
      }
      if (options.report && binding && binding.sign !== keys.sign)
        refuse(
          `keys.${member}`,
          `binds ${member} to ${shortKey(binding.sign)}, not to this key ${shortKey(keys.sign)}`,
        );
    },
    /**
     * Before this process writes `member`'s record: bound to this key (bound now if it was not).
     * A member bound to another key is another person's (or being impersonated): reported, and
     * the write refused (`EACCES`), so no process signs a record that is not its person's (a
     * beater on a host two people share beats its own person's members only).
     */
    async own(member: string): Promise<void> {
      if ((await boundTo(member))?.sign === keys.sign) return;
      await this.bind(member, { report: true });
      const binding = await boundTo(member);
      if (binding && binding.sign !== keys.sign)
        throw Object.assign(
          new Error(`${member} is bound to another key (${shortKey(binding.sign)}): not written`),
          { code: "EACCES" },
        );
    },
    /** The value this process writes at `key`. */
    wrap(key: string, text: string): string {
      return envelope(keys, signedPlace(key), "s", text);
    },
    /** Mail from `sender` to `recipient`, sealed to the recipient's bound key. */
    async seal(key: string, recipient: string, text: string): Promise<string> {
      const binding = await boundTo(recipient);
      if (!binding)
        throw Object.assign(new Error(`${recipient} has no key bound in the team`), {
          code: "ENOENT",
        });
      const message = parsed(text);
      const as = field(message, "forwardedFrom", "id") ?? field(message, "from", "id");
      const box = Buffer.from(
        keys.sealTo(encoder.encode(text), binding.seal, signedPlace(key)),
      ).toString("base64");
      return envelope(keys, signedPlace(key), "x", box, { as, sealer: keys.seal });
    },
    /** Mail marked read at `key` again, by this member, from a marker another key wrote. */
    remark(key: string, value: string): string | undefined {
      const marker = opened(signedPlace(key), value);
      if ("refused" in marker) return undefined;
      const delivered = marker.kind === "x" ? value : marker.payload;
      return envelope(keys, signedPlace(key), "r", delivered);
    },
    /** Mail marked read at `key`, holding its value as delivered. */
    markRead: (key: string, delivered: string) => envelope(keys, signedPlace(key), "r", delivered),
    /** The text at `key` when its writer may write it; else why not (reported). */
    async unwrap(key: string, value: string): Promise<Unwrapped> {
      const envelope = opened(signedPlace(key), value);
      if ("refused" in envelope) return refuse(key, envelope.refused);
      if (MAIL_STATES.has(key.split(".")[0] ?? "")) return openMail(key, envelope);
      if (envelope.kind !== "s") return refuse(key, "is sealed where a plain value belongs");
      const wrong = await ownership(key, envelope, envelope.payload);
      return wrong
        ? refuse(key, wrong)
        : { ok: true, text: envelope.payload, signer: envelope.signer };
    },
  };
}

export type Trust = ReturnType<typeof trust>;
