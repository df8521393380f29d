// Who may write what in a team's bucket, where NATS permissions cannot say it (every member may
// write every key of the bucket): each value is signed by its writer's key and checked on read
// against the key bound to the member it speaks for; mail is sealed to its recipient's key.
//
// A member's keys are bound on join: `keys.<member>` names its signing and sealing keys, signed by
// them, created once. Then a record (`sessions.<member>`), a claim (its holder), an `acknowledged`
// receipt mark (its member), mail (its sender) and mail marked read (its recipient, or its sender
// when shown another way) must be signed by that member's bound key; every other value by some
// member's key. A label's claim is refused when another key's member holding that label has a live
// record (written within `liveForMs`, by the server's clock and by its own heartbeat: a record put
// back byte for byte is stored now but beat long ago). A value refused is not handed to the
// roster as what it claims to be, and each refusal is reported once (`refusals`, `onRefused`).

import {
  type Bound,
  boundTo,
  type Checker,
  field,
  listBindings,
  parsed,
  type Unwrapped,
} from "./_bindings.js";
import { envelope, opened, openedOnce, shortKey } from "./_envelope.js";
import type { Keys } from "./_keys.js";
import { type Bucket, createKey, type Entry, lastDelete } from "./_kv.js";
import { shareRecords, signedPlace, unwrapValue } from "./_trust-check.js";

export type { Bound, Unwrapped };
export { signedPlace };

const encoder = new TextEncoder();

export type TrustOptions = {
  /** A record younger than this keeps its label from another key (ms; the roster's TTL). */
  liveForMs?: number | undefined;
  onRefused?: ((line: string) => void) | undefined;
};

/** Bind `member` to `keys` unless it is bound already; another key's binding kept, and said. */
async function bind(checker: Checker, member: string, report: boolean): Promise<void> {
  const { bucket, keys } = checker;
  let binding = await boundTo(checker, member);
  if (!binding) {
    const text = JSON.stringify({ v: 1, member, sign: keys.sign, seal: keys.seal });
    await createKey(bucket, `keys.${member}`, envelope(keys, `keys.${member}`, "s", text));
    binding = await boundTo(checker, member);
  }
  if (report && binding && binding.sign !== keys.sign)
    checker.refuse(
      `keys.${member}`,
      `binds ${member} to ${shortKey(binding.sign)}, not to this key ${shortKey(keys.sign)}`,
    );
}

/**
 * Whether the delete `key` ends in (if it does) was signed by a member's key for that key and a
 * revision before it: muster signs every delete of a keyed space (`tombstone`); a delete no member
 * signed was written to the bucket's keys directly (NATS cannot refuse it: a delete is a write).
 */
async function deletedUnsigned(bucket: Bucket, key: string) {
  const last = await lastDelete(bucket, key);
  if (!last) return undefined;
  const note = last.body === "" ? undefined : opened(`deleted.${key}`, last.body);
  const said = note && !("refused" in note) ? parsed(note.payload) : undefined;
  const revision = Number(said?.revision);
  if (said?.deleted === key && Number.isSafeInteger(revision) && revision < last.revision)
    return undefined;
  return last.revision;
}

/** Mail at `key` to `recipient`, sealed to the recipient's bound key. */
async function seal(checker: Checker, key: string, recipient: string, text: string) {
  const { keys } = checker;
  const binding = await boundTo(checker, recipient);
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
}

/** What a store's checks share, a refusal said by `say`. */
function checkerOf(
  bucket: Bucket,
  keys: Keys,
  liveForMs: number | undefined,
  say: (what: string, line: string) => void,
): Checker {
  return {
    bucket,
    keys,
    liveForMs: liveForMs ?? 60 * 60_000,
    bound: new Map(),
    reading: new Map(),
    open: openedOnce(),
    refuse(key: string, why: string, notMine = false): Unwrapped {
      const line = `refused ${key} in ${bucket.name}: it ${why}`;
      say(line, line);
      return { ok: false, error: `is refused: it ${why}`, notMine };
    },
  };
}

export function trust(bucket: Bucket, keys: Keys, options: TrustOptions = {}) {
  const reported = new Set<string>();
  const refusals: string[] = [];
  const say = (what: string, line: string) => {
    if (reported.has(what)) return;
    reported.add(what);
    refusals.push(line);
    options.onRefused?.(line);
  };
  const checker = checkerOf(bucket, keys, options.liveForMs, say);
  return {
    keys,
    refusals,
    boundTo: (member: string) => boundTo(checker, member),
    /** Say `line` (once for each `what`), as a refusal is said. */
    note: say,
    /**
     * Bind `member` to this process's keys unless it is bound already (a join's, or a migration's
     * mailbox); another key's binding is kept, and with `report` said.
     */
    bind: (member: string, options: { report?: boolean } = {}) =>
      bind(checker, member, options.report === true),
    /**
     * Before this process writes `member`'s record: bound to this key (bound now if it was not).
     * A member bound to another key is another person's (or being impersonated): reported, and
     * the write refused (`EACCES`), so no process signs a record that is not its person's (a
     * beater on a host two people share beats its own person's members only).
     */
    async own(member: string): Promise<void> {
      if ((await boundTo(checker, member))?.sign === keys.sign) return;
      await bind(checker, member, true);
      const binding = await boundTo(checker, member);
      if (binding && binding.sign !== keys.sign)
        throw Object.assign(
          new Error(`${member} is bound to another key (${shortKey(binding.sign)}): not written`),
          { code: "EACCES" },
        );
    },
    /** The body of this process's delete of `key` at `revision`: signed, so it is seen as muster's. */
    tombstone: (key: string, revision: number) =>
      envelope(keys, `deleted.${key}`, "s", JSON.stringify({ v: 1, deleted: key, revision })),
    /**
     * Say it when `key` (found gone) was deleted by a delete no member signed: a teammate's raw
     * delete of a live member's claim cannot be refused, but it is seen, by the holder's next beat.
     */
    async noticeDeleted(key: string): Promise<void> {
      const revision = await deletedUnsigned(bucket, key);
      if (revision === undefined) return;
      say(
        `deleted ${key} ${revision}`,
        `${key} in ${bucket.name} was deleted by a delete no member signed (revision ${revision}): not muster's, written to the bucket's keys directly (a teammate's credentials, or the server's operator); its holder claims it again`,
      );
    },
    /** The value this process writes at `key`. */
    wrap: (key: string, text: string): string => envelope(keys, signedPlace(key), "s", text),
    /** Mail from `sender` to `recipient`, sealed to the recipient's bound key. */
    seal: (key: string, recipient: string, text: string) => seal(checker, key, recipient, text),
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
    unwrap: (key: string, value: string) => unwrapValue(checker, key, value),
    /** A listing of every record, begun: the label checks of the next second read it too. */
    sawRecords: (listing: Promise<Entry[]>) => shareRecords(checker, listing),
    /** A listing of the records or labels, begun: each binding it will ask for, listed at once. */
    listBindings: () => listBindings(checker),
  };
}

export type Trust = ReturnType<typeof trust>;
