// The receipts of the NATS store: one key per (message, member, phase),
// `receipt.<message id>.<member id>.<phase>`, created exclusively, so the first mark stands
// however many mark at once; a settled message's marks folded by the roster's prune into one
// key, `receipt.<message id>`, created once. A value read back must name what its key says, else
// it is a stray.
import { type Bucket, createKey, deleteKey, putKey, readKey, watchKeys } from "./_kv.js";
import { listKeys } from "./_list.js";
import { isRefused, type Values } from "./_values.js";

type StoredMark = {
  member: string;
  phase: string;
  at: string;
  how?: string | undefined;
  from?: string | undefined;
  error?: string | undefined;
  until?: string | undefined;
  name?: string | undefined;
  folded?: boolean | undefined;
};

/** A folded mark: a mark, with its loose value as stored (signed by its writer), when kept. */
type FoldedMark = StoredMark & { signed?: string | undefined };

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const PHASE = /^[a-z][a-z-]{0,31}$/;

function checked(messageId: string): string {
  if (!ID.test(messageId))
    throw Object.assign(new Error(`"${messageId.slice(0, 40)}" is not a message id`), {
      code: "EINVAL",
    });
  return messageId;
}

/** A mark read back, strictly: it names the message, member and phase its key says. */
function parseMark(text: string, messageId: string, member: string, phase: string, name: string) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const mark = value as Record<string, unknown> | null;
  const optional = (field: unknown) => field === undefined || typeof field === "string";
  if (
    typeof mark !== "object" ||
    mark === null ||
    mark.v !== 1 ||
    mark.message !== messageId ||
    mark.member !== member ||
    mark.phase !== phase ||
    typeof mark.at !== "string" ||
    !optional(mark.how) ||
    !optional(mark.from) ||
    !optional(mark.error) ||
    !optional(mark.until)
  )
    return undefined;
  const { at, how, from, error, until } = mark as {
    at: string;
    how?: string;
    from?: string;
    error?: string;
    until?: string;
  };
  return { member, phase, at, how, from, error, until, name } satisfies StoredMark;
}

const FOLDED = ["member", "phase", "at", "how", "from", "error", "until"] as const;

/** A mark's own fields, for a fold (and to compare one folded with one loose). */
const foldedFields = (mark: StoredMark) =>
  Object.fromEntries(FOLDED.filter((field) => mark[field] !== undefined).map((f) => [f, mark[f]]));

/**
 * The folded marks of a message, strictly: undefined when there is no fold, `stray` when junk. An
 * `acknowledged` mark stands only with its loose value as its member signed it (any member folds).
 */
async function readFolded(kept: Values, messageId: string) {
  const entry = await kept.read(`receipt.${messageId}`);
  if (!entry) return undefined;
  if (isRefused(entry)) return "stray" as const;
  let value: unknown;
  try {
    value = JSON.parse(entry.value);
  } catch {
    return "stray" as const;
  }
  const fold = value as { v?: unknown; message?: unknown; marks?: unknown } | null;
  if (fold?.v !== 1 || fold.message !== messageId || !Array.isArray(fold.marks))
    return "stray" as const;
  const marks: StoredMark[] = [];
  for (const item of fold.marks as Record<string, unknown>[]) {
    if (typeof item !== "object" || item === null) return "stray" as const;
    if (!FOLDED.every((field) => item[field] === undefined || typeof item[field] === "string"))
      return "stray" as const;
    const { member, phase, at, how, from, error, until } = item as Record<
      string,
      string | undefined
    >;
    if (member === undefined || phase === undefined || at === undefined) return "stray" as const;
    const signed = typeof item.signed === "string" ? item.signed : undefined;
    const mark: FoldedMark = { member, phase, at, how, from, error, until, folded: true, signed };
    if (kept.trust && phase === "acknowledged" && !(await signedMark(kept, messageId, mark)))
      continue;
    marks.push({ member, phase, at, how, from, error, until, folded: true });
  }
  return marks;
}

/** Whether a folded mark carries its loose value, signed by its member, saying the same. */
async function signedMark(kept: Values, messageId: string, mark: FoldedMark): Promise<boolean> {
  if (mark.signed === undefined || !kept.trust) return false;
  const place = `receipt.${messageId}.${mark.member}.${mark.phase}`;
  const opened = await kept.trust.unwrap(place, mark.signed);
  const loose = opened.ok && parseMark(opened.text, messageId, mark.member, mark.phase, "");
  return !!loose && JSON.stringify(foldedFields(loose)) === JSON.stringify(foldedFields(mark));
}

/** Each mark `read` handed out, to its value as stored: what a fold of it keeps. */
type SignedOf = WeakMap<StoredMark, string>;

/** The first mark of a (message, member, phase) stands; with `latest`, the last one does. */
async function markReceipt(
  kept: Values,
  messageId: string,
  mark: StoredMark,
  options: { latest?: boolean },
): Promise<boolean> {
  if (!ID.test(mark.member) || !PHASE.test(mark.phase))
    throw Object.assign(new Error("a mark names a member id and a phase"), { code: "EINVAL" });
  const { member, phase, at, how, from, error, until } = mark;
  const text = JSON.stringify({
    v: 1,
    message: messageId,
    member,
    phase,
    at,
    how,
    from,
    error,
    until,
  });
  const key = `receipt.${checked(messageId)}.${mark.member}.${mark.phase}`;
  if (options.latest) {
    await putKey(kept.bucket, key, kept.wrap(key, text));
    return true;
  }
  const created = await createKey(kept.bucket, key, kept.wrap(key, text));
  if (!created.ok) return false;
  // Marked once already, if the message's marks were folded: that first mark stands.
  const folded = await readFolded(kept, messageId);
  const before = Array.isArray(folded)
    ? folded.find((each) => each.member === mark.member && each.phase === mark.phase)
    : undefined;
  if (before === undefined || before.at === mark.at) return true;
  await deleteKey(kept.bucket, key, created.revision);
  return false;
}

/** Loose marks first, then the fold: a mark folded meanwhile is seen in one or the other. */
async function readReceipt(kept: Values, signedOf: SignedOf, messageId: string) {
  const marks: StoredMark[] = [];
  const strays: { name: string; error: string }[] = [];
  const listed = await kept.list(`receipt.${checked(messageId)}.`);
  const nameOf = (key: string) => `${key.split(".").slice(2).join(".")}.json`;
  for (const each of listed.refused) strays.push({ name: nameOf(each.key), error: each.error });
  for (const entry of listed.entries) {
    const [member = "", phase = ""] = entry.key.split(".").slice(2);
    const name = `${member}.${phase}.json`;
    const mark = parseMark(entry.value, messageId, member, phase, name);
    if (mark) {
      if (kept.trust) signedOf.set(mark, entry.raw);
      marks.push(mark);
    } else strays.push({ name, error: "is not a receipt mark of this message" });
  }
  const folded = await readFolded(kept, messageId);
  if (folded === "stray") strays.push({ name: "(folded)", error: "is not a fold" });
  return { marks: [...(Array.isArray(folded) ? folded : []), ...marks], strays };
}

/** Every message with a receipt: loose marks (four tokens) and a folded value (two). */
async function listReceipts(bucket: Bucket) {
  const found = new Map<string, { id: string; loose: boolean; folded: boolean }>();
  for (const entry of await listKeys(bucket, "receipt.")) {
    const tokens = entry.key.split(".");
    const id = tokens[1] ?? "";
    if (!ID.test(id) || (tokens.length !== 2 && tokens.length !== 4)) continue;
    const known = found.get(id) ?? { id, loose: false, folded: false };
    if (tokens.length === 2) known.folded = true;
    else known.loose = true;
    found.set(id, known);
  }
  return [...found.values()];
}

/**
 * Fold loose marks into `receipt.<id>`, created once, then delete each loose key the stored
 * fold holds, at the revision read (a key rewritten meanwhile stays).
 */
async function foldReceipt(
  kept: Values,
  signedOf: SignedOf,
  messageId: string,
  marks: readonly StoredMark[],
): Promise<boolean> {
  const key = `receipt.${checked(messageId)}`;
  const loose = marks
    .filter((mark) => !mark.folded)
    .map((mark) => ({ ...foldedFields(mark), signed: signedOf.get(mark) }));
  const text = JSON.stringify({ v: 1, message: messageId, marks: loose });
  const created = (await createKey(kept.bucket, key, kept.wrap(key, text))).ok;
  const stored = await readFolded(kept, messageId);
  if (!Array.isArray(stored)) return created;
  const held = new Set(stored.map((mark) => JSON.stringify(foldedFields(mark))));
  for (const entry of (await kept.list(`${key}.`)).entries) {
    const [member = "", phase = ""] = entry.key.split(".").slice(2);
    const mark = parseMark(entry.value, messageId, member, phase, "");
    if (mark && held.has(JSON.stringify(foldedFields(mark))))
      await deleteKey(kept.bucket, entry.key, entry.revision);
  }
  return created;
}

export function natsReceipts(kept: Values) {
  const { bucket } = kept;
  const signedOf: SignedOf = new WeakMap();
  return {
    mark: (messageId: string, mark: StoredMark, options: { latest?: boolean } = {}) =>
      markReceipt(kept, messageId, mark, options),
    read: (messageId: string) => readReceipt(kept, signedOf, messageId),
    list: () => listReceipts(bucket),
    fold: (messageId: string, marks: readonly StoredMark[]) =>
      foldReceipt(kept, signedOf, messageId, marks),
    async remove(messageId: string) {
      const key = `receipt.${checked(messageId)}`;
      for (const entry of await listKeys(bucket, `${key}.`))
        await deleteKey(bucket, entry.key, entry.revision);
      const folded = await readKey(bucket, key);
      if (folded) await deleteKey(bucket, key, folded.revision);
      return { removed: true, warnings: [] as string[] };
    },
    /** Nothing to sweep: no mark leaves a temp value behind. */
    async sweep(_now: number) {
      return { cleared: [] as string[], warnings: [] as string[] };
    },
    watch: (messageId: string, onMark: () => void) =>
      watchKeys(bucket, `receipt.${checked(messageId)}.`, (_key, operation) => {
        if (operation === "PUT") onMark();
      }),
  };
}
