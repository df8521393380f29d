// The folder store's receipts: one small file per (message, member, phase),
// `receipts/<message id>/<member id>.<phase>.json`, created exclusively, so many processes mark at
// once with no lock and the first mark stands (a failed wake, `.wake-failed.json`, is written whole:
// the latest stands); a settled message's marks folded by prune into `receipts/<message id>.json`
// (`_folder-receipt-fold.ts`). This layout is the folder store's alone: the rules (which phases,
// what a mark may say, when to fold) are `_receipts.ts` and `_receipt-settle.ts`.
import {
  foldReceipt,
  isReceiptName,
  listReceipts,
  markName,
  readFolded,
  removeReceipt,
} from "./_folder-receipt-fold.js";
import {
  checkRealFolder,
  createExclusive,
  ensureFolders,
  errorCode,
  FOLDER_MODE,
  isTempName,
  listFolder,
  type RosterFs,
  readIfPresent,
  unlinkIfPresent,
  writeWhole,
} from "./_fs.js";
import type { Layout } from "./_layout.js";
import type { ReceiptStore, StoredMark } from "./_store.js";

export { isReceiptName };

/** One mark file, strictly: it must name the message, member and phase its file name says. */
function parseMark(text: string, messageId: string, name: string, member: string, phase: string) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const mark = value as Record<string, unknown> | null;
  const optional = (field: unknown) => field === undefined || typeof field === "string";
  const valid =
    typeof mark === "object" &&
    mark !== null &&
    mark.v === 1 &&
    mark.message === messageId &&
    mark.member === member &&
    mark.phase === phase &&
    typeof mark.at === "string" &&
    optional(mark.how) &&
    optional(mark.from) &&
    optional(mark.error) &&
    optional(mark.until);
  if (!valid) return undefined;
  const { at, how, from, error, until } = mark as {
    at: string;
    how?: string;
    from?: string;
    error?: string;
    until?: string;
  };
  return { member, phase, at, how, from, error, until, name } satisfies StoredMark;
}

export function folderReceipts(fs: RosterFs, paths: Layout, clock: () => number): ReceiptStore {
  return {
    async mark(messageId, mark, options = {}) {
      // A fold may remove the folder between our look and our write: look again, then write.
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await markOnce(fs, paths, clock, messageId, mark, options.latest === true);
        } catch (error) {
          if (errorCode(error) !== "ENOENT" || attempt >= 2) throw error;
        }
      }
    },
    read: (messageId) => readMarks(fs, paths, messageId),
    list: () => listReceipts(fs, paths),
    fold: (messageId, marks) => foldReceipt(fs, paths, messageId, marks, clock()),
    remove: (messageId) => removeReceipt(fs, paths, messageId),
    sweep: (now) => sweepTemps(fs, paths, now),
    folder: (messageId) => paths.receiptFolder(messageId),
  };
}

/**
 * Make a message's receipt folder, or check the one there is a real folder of this user (a
 * planted symlink is never followed); true when this call made it.
 */
async function receiptFolder(fs: RosterFs, paths: Layout, folder: string): Promise<boolean> {
  try {
    await fs.mkdir(folder, FOLDER_MODE);
    return true;
  } catch (error) {
    if (errorCode(error) !== "EEXIST") {
      await ensureFolders(fs, [paths.receipts, folder]);
      return false;
    }
    await checkRealFolder(fs, folder);
    return false;
  }
}

/** Write one mark: the first of its phase, or with `latest` the latest; true when it stands. */
async function markOnce(
  fs: RosterFs,
  paths: Layout,
  clock: () => number,
  messageId: string,
  mark: StoredMark,
  latest: boolean,
): Promise<boolean> {
  const folder = paths.receiptFolder(messageId);
  await receiptFolder(fs, paths, folder);
  const { member, phase, at, how, from, error, until } = mark;
  const fields = { v: 1, message: messageId, member, phase, at, how, from, error, until };
  const text = `${JSON.stringify(fields)}\n`;
  const file = `${folder}/${member}.${phase}.json`;
  // The latest of a phase where the latest stands is written whole; any other, only if first.
  if (latest) {
    await writeWhole(fs, file, text, clock());
    return true;
  }
  if (!(await createExclusive(fs, file, text, clock()))) return false;
  // Marked once already, if the message's marks were folded: that first mark stands.
  const folded = await readFolded(fs, paths, messageId);
  const before = Array.isArray(folded)
    ? folded.find((each) => each.member === member && each.phase === phase && each.at !== at)
    : undefined;
  if (before === undefined) return true;
  await unlinkIfPresent(fs, file);
  return false;
}

/** A message's marks, folded and loose, and the files in its folder that are not marks. */
async function readMarks(fs: RosterFs, paths: Layout, messageId: string) {
  const folder = paths.receiptFolder(messageId);
  const marks: StoredMark[] = [];
  const strays: { name: string; error: string }[] = [];
  // Loose first: a mark a fold removes meanwhile was in the folded file before it went.
  for (const name of (await listFolder(fs, folder)).sort()) {
    if (isTempName(name)) continue;
    const parts = markName(name);
    let text: string | undefined;
    try {
      text = parts ? await readIfPresent(fs, `${folder}/${name}`) : "";
    } catch (error) {
      strays.push({ name, error: `cannot be read (${errorCode(error) ?? "error"})` });
      continue;
    }
    if (text === undefined) continue; // folded or pruned since the listing
    const mark = parts ? parseMark(text, messageId, name, parts.member, parts.phase) : undefined;
    if (mark) marks.push(mark);
    else strays.push({ name, error: "is not a receipt" });
  }
  const folded = await readFolded(fs, paths, messageId);
  if (folded === "stray") strays.push({ name: `../${messageId}.json`, error: "is not a fold" });
  return { marks: [...(Array.isArray(folded) ? folded : []), ...marks], strays };
}

/** Interrupted marks leave temp files; these are cleared once older than a write can take. */
const TEMP_GRACE_MS = 10_000;

/** Clear the temp files interrupted marks and folds left, once older than a write can take. */
async function sweepTemps(fs: RosterFs, paths: Layout, now: number) {
  const report = { cleared: [] as string[], warnings: [] as string[] };
  const clear = async (folder: string, shown: string) => {
    for (const name of (await listFolder(fs, folder)).filter(isTempName)) {
      const temp = await fs.lstat(`${folder}/${name}`).catch(() => undefined);
      if (!temp || temp.isDirectory || now - temp.mtimeMs <= TEMP_GRACE_MS) continue;
      if (await unlinkIfPresent(fs, `${folder}/${name}`).catch(() => false))
        report.cleared.push(`${shown}/${name}`);
    }
  };
  await clear(paths.receipts, "receipts");
  for (const { id, loose } of await listReceipts(fs, paths)) {
    if (!loose) continue;
    const facts = await fs.lstat(paths.receiptFolder(id)).catch(() => undefined);
    if (!facts?.isDirectory || facts.isSymbolicLink) {
      report.warnings.push(`receipts/${id} is not a folder; skipped`);
      continue;
    }
    await clear(paths.receiptFolder(id), `receipts/${id}`);
  }
  return report;
}
