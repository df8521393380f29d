// Whose keys a member is bound to, as its own signed binding (`keys.<member>`) names them, and what
// a store's checks share (`Checker`): a binding is read once and cached, from one listing of
// `keys.` when a roster read lists its records or labels, else by key. Owns the reading of
// bindings; what a value's signer may write is `_trust-check.ts`.
import { bounded, boundFor } from "./_bound.js";
import type { opened } from "./_envelope.js";
import type { Keys } from "./_keys.js";
import { type Bucket, type Entry, readKey } from "./_kv.js";
import { listKeysUpTo } from "./_list.js";

export type Bound = { sign: string; seal: string };
/**
 * A value's text, or why it is refused; `notMine`: mail sealed to another member (not refused);
 * `stillUnread`: mail marked read by a key that may not, so still unread (its text).
 */
export type Unwrapped =
  | { ok: true; text: string; signer: string }
  | { ok: false; error: string; notMine?: boolean; stillUnread?: string | undefined };

export const parsed = (text: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};
export const field = (value: Record<string, unknown> | undefined, ...path: string[]) => {
  let at: unknown = value;
  for (const step of path)
    at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[step] : undefined;
  return typeof at === "string" ? at : undefined;
};

/** What a store's checks share: its bucket and keys, what is bound, and how a refusal is said. */
export type Checker = {
  bucket: Bucket;
  keys: Keys;
  liveForMs: number;
  bound: Map<string, Bound | undefined>;
  /** The bindings being read, by member. */
  reading: Map<string, Promise<Bound | undefined>>;
  /**
   * The bindings one listing of `keys.` found, as kept (not yet verified), once a listing of the
   * records or labels began (`listBindings`): each used once, then a member is read by key.
   */
  listed?: Promise<Map<string, Entry>> | undefined;
  /** `opened`, each place's value verified once while it stays the same (`openedOnce`). */
  open: typeof opened;
  refuse(key: string, why: string, notMine?: boolean): Unwrapped;
  /**
   * The listed records, each opened (its signature checked) once per listing, not per label;
   * `at`: when the listing ended (infinite while it is under way).
   */
  records?:
    | { at: number; entries: Promise<{ entry: Entry; envelope: ReturnType<typeof opened> }[]> }
    | undefined;
};

/**
 * The keys bound to `member`, as its own signed binding names them; cached once read, and read
 * once while a read is under way: a roster read checks its records and labels at once, and both
 * read (and verified) each member's binding.
 */
export function boundTo(checker: Checker, member: string): Promise<Bound | undefined> {
  const { bound, reading } = checker;
  if (bound.has(member)) return Promise.resolve(bound.get(member));
  const under = reading.get(member);
  if (under) return under;
  const read = readBinding(checker, member).finally(() => reading.delete(member));
  reading.set(member, read);
  return read;
}

/**
 * The most bindings a listing reads (a team of 1,000 members has 1,000): past it, a teammate's
 * junk bindings would cost every read a listing of them, where read by key they cost nothing
 * unless a value names their member.
 */
const LISTED_BINDINGS = 2_000;

/**
 * List every binding once, in the background, for `readBinding` to find there: a fresh process
 * reading a roster of 1,000 members read 1,000 bindings one by one. Bounded as every listing is
 * (64 a key: a member of a key skipped is read by key); a member it does not have is read by key
 * (bound since, or never: that a binding is missing is never answered from a listing, which a
 * join may have outrun), and so is every member when the listing fails or there are too many.
 */
export function listBindings(checker: Checker): void {
  if (checker.listed) return;
  const member = (entry: Entry) => entry.key.slice("keys.".length);
  checker.listed = listKeysUpTo(checker.bucket, "keys.", LISTED_BINDINGS).then(
    (entries) =>
      entries === "over"
        ? new Map()
        : new Map(bounded(entries, boundFor("keys.")).kept.map((each) => [member(each), each])),
    () => new Map(),
  );
}

/** `member`'s binding as the listing of `keys.` had it, once (then it is read by key). */
async function listedBinding(checker: Checker, member: string): Promise<Entry | undefined> {
  const listed = await checker.listed;
  const entry = listed?.get(member);
  listed?.delete(member);
  return entry;
}

async function readBinding(checker: Checker, member: string): Promise<Bound | undefined> {
  const { bucket, bound } = checker;
  const entry = (await listedBinding(checker, member)) ?? (await readKey(bucket, `keys.${member}`));
  const envelope = entry && checker.open(`keys.${member}`, entry.value);
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
