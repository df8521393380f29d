// Checking what is read from a team's bucket against who may have written it (`_trust.ts` says
// the rule): whose key a member is bound to, whether a signer speaks for the member a value names,
// whether a label's claim is another key's while its holder's record is live, and mail opened
// with this member's key. Each is a function of the checker's state (`Checker`, `_bindings.ts`),
// which `trust` makes once per store.
import { boundTo, type Checker, field, parsed, type Unwrapped } from "./_bindings.js";
import { bounded, boundFor } from "./_bound.js";
import { type Envelope, opened, shortKey } from "./_envelope.js";
import type { Entry } from "./_kv.js";
import { listKeys } from "./_list.js";

const CLAIM_SPACES = new Set(["labels", "leases", "wakes", "cards", "spawns", "listeners"]);
export const MAIL_STATES = new Set(["unread", "read", "retired", "aside"]);
const decoder = new TextDecoder();

/** Where a mail value is signed: the same place whether unread, read, retired or set aside. */
export function signedPlace(key: string): string {
  const [state = "", member = "", id = ""] = key.split(".");
  return MAIL_STATES.has(state) ? `mail.${member}.${id}` : key;
}

/** Whether `signer` may speak for `member`: its bound key, or any key while it has none. */
async function speaksFor(
  checker: Checker,
  member: string | undefined,
  signer: string,
): Promise<string | undefined> {
  if (member === undefined) return undefined;
  const binding = await boundTo(checker, member);
  return binding === undefined || binding.sign === signer
    ? undefined
    : `is signed by ${shortKey(signer)}, not by ${member}'s key ${shortKey(binding.sign)}`;
}

/**
 * How long after it ends one listing of the records answers the label checks (ms): a record is
 * live for an hour, so a few seconds' age changes no answer; one second was outlasted by the label
 * checks of the read whose listing it was, under a flood, and every record was listed again.
 */
const RECORDS_MS = 5_000;
type Records = NonNullable<Checker["records"]>;

/**
 * The records `listing` lists (its values, bounded as every listing is), for the label checks
 * until `RECORDS_MS` after it ends: a roster read lists them anyway, and its listing serves the
 * checks of the labels it reads, rather than a second listing of every record. A listing still
 * under way serves them too (aged from its start, one that took over a second was listed again
 * for each label checked after: a flood's listing of 10,000 records, five times in one read).
 */
export function shareRecords(checker: Checker, listing: Promise<Entry[]>): void {
  const records: Records = {
    at: Number.POSITIVE_INFINITY,
    entries: listing.then((listed) => {
      records.at = Date.now();
      return bounded(listed, boundFor("sessions.")).kept.map((entry) => ({
        entry,
        envelope: checker.open(entry.key, entry.value),
      }));
    }),
  };
  // A failed listing fails its own reader; the next label check lists again.
  records.entries.catch(() => {
    if (checker.records === records) checker.records = undefined;
  });
  checker.records = records;
}

/** A live record of another key holding label `label`, if any (a listing serves `RECORDS_MS`). */
async function liveHolderOf(
  checker: Checker,
  label: string,
  signer: string,
): Promise<string | undefined> {
  const { bucket, liveForMs } = checker;
  const now = Date.now();
  if (!checker.records || now - checker.records.at > RECORDS_MS)
    shareRecords(checker, listKeys(bucket, "sessions."));
  const records = await (checker.records as Records).entries;
  for (const { entry, envelope } of byLabel(records).get(label) ?? []) {
    const member = entry.key.slice("sessions.".length);
    if ("refused" in envelope || envelope.signer === signer) continue;
    if ((await speaksFor(checker, member, envelope.signer)) !== undefined) continue;
    if (now - writtenAt(entry, envelope.payload) <= liveForMs)
      return `claims the label ${label}, held by ${member} of another key (${shortKey(envelope.signer)}), whose record is live`;
  }
  return undefined;
}

/**
 * When a record was written: by the server's clock, or by its own signed heartbeat when that is
 * older. A record a teammate put back byte for byte (a departed member's, replayed at its own key)
 * is stored now, but its heartbeat is as old as it was: without it, the replay held the label.
 */
function writtenAt(entry: Entry, payload: string): number {
  const beat = Date.parse(field(parsed(payload), "heartbeatAt") ?? "");
  return Number.isFinite(beat) ? Math.min(beat, entry.created) : entry.created;
}

type Opened = { entry: Entry; envelope: ReturnType<typeof opened> };
const labelIndexes = new WeakMap<readonly Opened[], Map<string, Opened[]>>();

/**
 * A listing's records by the label each names (lower case), parsed once per listing: each label's
 * check went through every record, parsing each again (1,000 members: a million parses a read).
 */
function byLabel(records: readonly Opened[]): Map<string, Opened[]> {
  const known = labelIndexes.get(records);
  if (known) return known;
  const index = new Map<string, Opened[]>();
  for (const record of records) {
    if ("refused" in record.envelope) continue;
    const label = field(parsed(record.envelope.payload), "label")?.toLowerCase();
    if (label === undefined) continue;
    const same = index.get(label);
    if (same) same.push(record);
    else index.set(label, [record]);
  }
  labelIndexes.set(records, index);
  return index;
}

/** Why the value at `key` may not be what it says, or undefined when its writer may write it. */
async function ownership(
  checker: Checker,
  key: string,
  envelope: Envelope,
  text: string,
): Promise<string | undefined> {
  const [space = "", second = "", third = "", fourth = ""] = key.split(".");
  if (space === "sessions") return speaksFor(checker, second, envelope.signer);
  if (CLAIM_SPACES.has(space)) {
    const value = parsed(text);
    const wrong = await speaksFor(
      checker,
      field(value, "holder") ?? field(value, "id"),
      envelope.signer,
    );
    if (wrong || space !== "labels") return wrong;
    return liveHolderOf(checker, second.replaceAll("=", ".").toLowerCase(), envelope.signer);
  }
  if (space === "receipt" && fourth === "acknowledged")
    return speaksFor(checker, third, envelope.signer);
  return undefined;
}

/** The text of mail at `key`: unsealed when it is sealed to this member's key. */
async function openMail(checker: Checker, key: string, envelope: Envelope): Promise<Unwrapped> {
  const [state = "", recipient = ""] = key.split(".");
  const { refuse } = checker;
  let sealed = envelope;
  if (state === "read" && envelope.kind === "x") {
    // Delivered mail copied to read/ by a key that may not mark it read: still unread.
    const unread = await openMail(checker, key.replace(/^read\./, "unread."), envelope);
    const refused = refuse(key, "is mail not marked read by its recipient");
    return unread.ok && !refused.ok ? { ...refused, stillUnread: unread.text } : refused;
  }
  if (state === "read") {
    if (envelope.kind !== "r") return refuse(key, "is not marked read by its recipient");
    const inner = opened(signedPlace(key), envelope.payload);
    if ("refused" in inner) return refuse(key, inner.refused);
    const marker = await speaksFor(checker, recipient, envelope.signer);
    if (marker && (await speaksFor(checker, inner.as, envelope.signer))) {
      const unread = await openMail(checker, key.replace(/^read\./, "unread."), inner);
      const refused = refuse(key, "is marked read by neither its recipient nor its sender");
      return unread.ok && !refused.ok ? { ...refused, stillUnread: unread.text } : refused;
    }
    sealed = inner;
  }
  if (sealed.kind !== "x") return refuse(key, "is mail that is not sealed to its recipient");
  const wrongSender = await speaksFor(checker, sealed.as, sealed.signer);
  if (wrongSender) return refuse(key, `is mail ${wrongSender}`);
  const own = await boundTo(checker, recipient);
  if (own?.seal !== checker.keys.seal)
    return { ok: false, error: "is sealed to another member's key", notMine: true };
  const senderSeal =
    sealed.as === undefined ? undefined : (await boundTo(checker, sealed.as))?.seal;
  const box = senderSeal === sealed.sealer || senderSeal === undefined ? sealed.sealer : undefined;
  const bytes =
    box &&
    checker.keys.openFrom(
      new Uint8Array(Buffer.from(sealed.payload, "base64")),
      box,
      signedPlace(key),
    );
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

/** The text at `key` when its writer may write it; else why not (reported). */
export async function unwrapValue(
  checker: Checker,
  key: string,
  value: string,
): Promise<Unwrapped> {
  const envelope = checker.open(signedPlace(key), value);
  if ("refused" in envelope) return checker.refuse(key, envelope.refused);
  if (MAIL_STATES.has(key.split(".")[0] ?? "")) return openMail(checker, key, envelope);
  if (envelope.kind !== "s") return checker.refuse(key, "is sealed where a plain value belongs");
  const wrong = await ownership(checker, key, envelope, envelope.payload);
  return wrong
    ? checker.refuse(key, wrong)
    : { ok: true, text: envelope.payload, signer: envelope.signer };
}
