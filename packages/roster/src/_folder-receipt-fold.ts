// The folder store's folded receipts: a settled message's marks in one file,
// `receipts/<message id>.json`, created exclusively once and never rewritten, beside the folder of
// its loose marks (`receipts/<message id>/`), which the fold empties and removes. The order makes
// a crash safe: the folded file is whole before any loose mark goes, and a loose mark goes only
// when the stored folded file holds it; a mark made meanwhile stays loose.
import {
  createExclusive,
  errorCode,
  isTempName,
  listFolder,
  type RosterFs,
  readIfPresent,
  unlinkIfPresent,
} from "./_fs.js";
import type { Layout } from "./_layout.js";
import type { ListedReceipt, StoredMark } from "./_store.js";
import { validateId } from "./_validate.js";

const MARK_NAME =
  /^([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.(written|woke|delivered|acknowledged|wake-failed|wake-held)\.json$/;
const FOLDED_NAME = /^([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.json$/;
const FIELDS = ["member", "phase", "at", "how", "from", "error", "until"] as const;

/** Whether `name` is one muster writes in a receipt folder (a mark or a temp file). */
export const isReceiptName = (name: string) => MARK_NAME.test(name) || isTempName(name);

/** A mark file's name: its member and phase, or undefined when it is none. */
export const markName = (name: string) => {
  const parts = MARK_NAME.exec(name);
  return parts ? { member: parts[1]!, phase: parts[2]! } : undefined;
};

/** One mark as written: only its own fields, strings each. */
const fieldsOf = (mark: Partial<Record<(typeof FIELDS)[number], unknown>>) =>
  Object.fromEntries(
    FIELDS.filter((field) => mark[field] !== undefined).map((field) => [field, mark[field]]),
  ) as Partial<StoredMark>;

const sameMark = (left: StoredMark, right: StoredMark) =>
  FIELDS.every((field) => left[field] === right[field]);

/** The folded file's marks, strictly; undefined when it is absent, `stray` when it is no fold. */
export async function readFolded(
  fs: RosterFs,
  paths: Layout,
  messageId: string,
): Promise<StoredMark[] | "stray" | undefined> {
  const text = await readIfPresent(fs, paths.receiptFolded(messageId));
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "stray";
  }
  const fold = value as { v?: unknown; message?: unknown; marks?: unknown } | null;
  if (fold?.v !== 1 || fold.message !== messageId || !Array.isArray(fold.marks)) return "stray";
  const marks: StoredMark[] = [];
  for (const entry of fold.marks as unknown[]) {
    const mark = entry as Record<string, unknown> | null;
    if (typeof mark !== "object" || mark === null) return "stray";
    if (!FIELDS.every((field) => mark[field] === undefined || typeof mark[field] === "string"))
      return "stray";
    const read = fieldsOf(mark);
    if (read.member === undefined || read.phase === undefined || read.at === undefined)
      return "stray";
    marks.push({ ...read, member: read.member, phase: read.phase, at: read.at, folded: true });
  }
  return marks;
}

/** Fold `marks` (loose, as read) into the message's folded file, then remove what it holds. */
export async function foldReceipt(
  fs: RosterFs,
  paths: Layout,
  messageId: string,
  marks: readonly StoredMark[],
  now: number,
): Promise<boolean> {
  const fields = marks.filter((mark) => !mark.folded).map((mark) => fieldsOf(mark));
  const text = `${JSON.stringify({ v: 1, message: messageId, marks: fields })}\n`;
  const created = await createExclusive(fs, paths.receiptFolded(messageId), text, now);
  const stored = await readFolded(fs, paths, messageId);
  if (!Array.isArray(stored)) return created;
  const folder = paths.receiptFolder(messageId);
  for (const mark of marks) {
    if (mark.folded || !stored.some((each) => sameMark(each, mark))) continue;
    await unlinkIfPresent(fs, `${folder}/${mark.member}.${mark.phase}.json`);
  }
  // Empty now, unless a mark came meanwhile: then rmdir fails and the folder stays.
  await fs.rmdir?.(folder).catch(() => undefined);
  return created;
}

/** Every message with a receipt: a folder of loose marks, a folded file, or both. */
export async function listReceipts(fs: RosterFs, paths: Layout): Promise<ListedReceipt[]> {
  const found = new Map<string, ListedReceipt>();
  for (const name of await listFolder(fs, paths.receipts)) {
    const folded = FOLDED_NAME.exec(name)?.[1];
    const id = folded ?? name;
    if (!validateId(id).ok) continue;
    const entry = found.get(id) ?? { id, loose: false, folded: false };
    if (folded) entry.folded = true;
    else entry.loose = true;
    found.set(id, entry);
  }
  return [...found.values()];
}

/**
 * Remove a message's receipt whole: its folded file, its loose marks, then its folder. A name
 * muster does not write is left where it is (with the folder), and said.
 */
export async function removeReceipt(fs: RosterFs, paths: Layout, messageId: string) {
  const warnings: string[] = [];
  const folder = paths.receiptFolder(messageId);
  let foreign = false;
  for (const name of await listFolder(fs, folder)) {
    if (!isReceiptName(name)) {
      foreign = true;
      continue;
    }
    const removed = await unlinkIfPresent(fs, `${folder}/${name}`).catch(() => false);
    if (!removed && (await fs.lstat(`${folder}/${name}`).catch(() => undefined))) foreign = true;
  }
  if (foreign) {
    warnings.push(`receipts/${messageId} holds names muster does not write; left in place`);
    return { removed: false, warnings };
  }
  // rmdir fails on anything planted since the listing; removeTree only where there is no rmdir.
  const rmdir = fs.rmdir ?? ((path: string) => fs.removeTree(path));
  const gone = await rmdir(folder).then(
    () => true,
    (error: unknown) => errorCode(error) === "ENOENT",
  );
  if (gone) await unlinkIfPresent(fs, paths.receiptFolded(messageId));
  return { removed: gone, warnings };
}
