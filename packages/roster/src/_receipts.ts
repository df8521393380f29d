// Receipts: one small file per (message, recipient, phase), created exclusively, so many processes
// mark phases at once with no lock and the first mark of a phase stands. Which phase ranks above
// which, and what a sender's goal needs, are core's rules; this file only keeps the marks.
import { CLAIM_GRACE_MS } from "./_claim.js";
import {
  checkRealFolder,
  createExclusive,
  ensureFolders,
  errorCode,
  errorText,
  FOLDER_MODE,
  isTempName,
  listFolder,
  readIfPresent,
  unlinkIfPresent,
  writeWhole,
} from "./_fs.js";
import type { Team } from "./_team.js";
import { iso } from "./_team.js";
import { validateId } from "./_validate.js";

/** The phases a receipt records (core ranks them). */
export const RECEIPT_PHASES = ["written", "woke", "delivered", "acknowledged"] as const;
export type ReceiptPhase = (typeof RECEIPT_PHASES)[number];

/** A receipt folder is removed by prune this long after its last mark: one day. */
export const RECEIPT_KEEP_MS = 24 * 60 * 60_000;

export type ReceiptMark = { at: string; how?: string | undefined };
export type RecipientReceipt = {
  id: string;
  phases: Partial<Record<ReceiptPhase, ReceiptMark>>;
};

export type MessageReceipt =
  | { ok: true; id: string; recipients: RecipientReceipt[]; warnings: string[] }
  | { ok: false; reason: "bad-id" | "unreadable"; error: string; fix?: string | undefined };

export type MarkResult =
  | { ok: true; marked: string[] }
  | { ok: false; reason: "bad-input" | "unwritable"; error: string };

/** The door that reached a phase: a short lower-case word (`pi`, `inbox`, `codex-queue`). */
const HOW = /^[a-z][a-z0-9-]{0,31}$/;
const NAME = /^([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.(written|woke|delivered|acknowledged)\.json$/;

/** Whether `name` is one muster writes in a receipt folder (a mark or a temp file). */
export const isReceiptName = (name: string) => NAME.test(name) || isTempName(name);

/**
 * Mark `phase` for member `id` on each message. Message ids that are not ids are skipped (never a
 * path); a phase already marked keeps its first mark. `marked` lists the messages newly marked.
 */
export async function markPhase(
  team: Team,
  phase: ReceiptPhase,
  id: string,
  messageIds: readonly string[],
  how?: string,
): Promise<MarkResult> {
  const member = validateId(id);
  if (!member.ok) return { ok: false, reason: "bad-input", error: member.error };
  if (how !== undefined && !HOW.test(how))
    return { ok: false, reason: "bad-input", error: `"${how}" is not a door name` };
  const marked: string[] = [];
  const at = team.clock();
  try {
    for (const messageId of messageIds) {
      if (!validateId(messageId, "message id").ok) continue;
      const folder = team.paths.receiptFolder(messageId);
      const fresh = await receiptFolder(team, folder);
      const text = `${JSON.stringify({ v: 1, message: messageId, member: id, phase, at: iso(at), ...(how ? { how } : {}) })}\n`;
      const file = `${folder}/${id}.${phase}.json`;
      // A folder this call made holds nothing yet: a whole-file write (temp, rename) is enough.
      if (fresh) await writeWhole(team.fs, file, text, at);
      if (fresh || (await createExclusive(team.fs, file, text, at))) marked.push(messageId);
    }
  } catch (error) {
    return {
      ok: false,
      reason: "unwritable",
      error: `cannot write a receipt for ${id}: ${errorText(error)}`,
    };
  }
  return { ok: true, marked };
}

/**
 * Make a message's receipt folder, or check the one there is a real folder of this user (a planted
 * symlink is never followed); true when this call made it. The receipts root is made by open.
 */
async function receiptFolder(team: Team, folder: string): Promise<boolean> {
  try {
    await team.fs.mkdir(folder, FOLDER_MODE);
    return true;
  } catch (error) {
    if (errorCode(error) !== "EEXIST") {
      await ensureFolders(team.fs, [team.paths.receipts, folder]);
      return false;
    }
    await checkRealFolder(team.fs, folder);
    return false;
  }
}

/** One mark file, strictly: it must name the message, member and phase its file name says. */
function parseMark(text: string, messageId: string, member: string, phase: string) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const mark = value as Record<string, unknown> | null;
  const valid =
    typeof mark === "object" &&
    mark !== null &&
    mark.v === 1 &&
    mark.message === messageId &&
    mark.member === member &&
    mark.phase === phase &&
    typeof mark.at === "string" &&
    !Number.isNaN(Date.parse(mark.at)) &&
    (mark.how === undefined || (typeof mark.how === "string" && HOW.test(mark.how)));
  if (!valid) return undefined;
  return { at: mark.at as string, ...(mark.how ? { how: mark.how as string } : {}) };
}

/** Every recipient's marks on a message, written order first; files that are not marks warn. */
export async function readReceipt(team: Team, messageId: string): Promise<MessageReceipt> {
  const valid = validateId(messageId, "message id");
  if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error, fix: valid.fix };
  const folder = team.paths.receiptFolder(messageId);
  let names: string[];
  try {
    names = await listFolder(team.fs, folder);
  } catch (error) {
    return {
      ok: false,
      reason: "unreadable",
      error: `cannot read the receipt of ${messageId}: ${errorText(error)}`,
    };
  }
  const byMember = new Map<string, RecipientReceipt>();
  const warnings: string[] = [];
  const where = (name: string) => `receipts/${messageId}/${name}`;
  for (const name of names.sort()) {
    if (isTempName(name)) continue;
    const parts = NAME.exec(name);
    let text: string | undefined;
    try {
      text = parts ? await readIfPresent(team.fs, `${folder}/${name}`) : "";
    } catch (error) {
      warnings.push(`${where(name)} cannot be read (${errorCode(error) ?? "error"}); skipped`);
      continue;
    }
    if (text === undefined) continue; // pruned since the listing
    const [member, phase] = [parts?.[1] ?? "", (parts?.[2] ?? "") as ReceiptPhase];
    const mark = parts ? parseMark(text, messageId, member, phase) : undefined;
    if (!mark) {
      warnings.push(`${where(name)} is not a receipt; skipped`);
      continue;
    }
    const entry = byMember.get(member) ?? { id: member, phases: {} };
    entry.phases[phase] = mark;
    byMember.set(member, entry);
  }
  const recipients = [...byMember.values()].sort(
    (left, right) =>
      (left.phases.written?.at ?? "~").localeCompare(right.phases.written?.at ?? "~") ||
      left.id.localeCompare(right.id),
  );
  return { ok: true, id: messageId, recipients, warnings };
}

/** The temp files of marks a crash interrupted, once older than a write can take. */
async function clearTemps(
  team: Team,
  messageId: string,
  now: number,
  report: { cleared: string[] },
) {
  const folder = team.paths.receiptFolder(messageId);
  for (const name of await listFolder(team.fs, folder)) {
    if (!isTempName(name)) continue;
    const facts = await team.fs.lstat(`${folder}/${name}`).catch(() => undefined);
    if (!facts || facts.isDirectory || now - facts.mtimeMs <= CLAIM_GRACE_MS) continue;
    if (await unlinkIfPresent(team.fs, `${folder}/${name}`).catch(() => false))
      report.cleared.push(`receipts/${messageId}/${name}`);
  }
}

/**
 * Prune: a receipt folder untouched for RECEIPT_KEEP_MS loses its marks, then the folder; a newer
 * one only the temp files of interrupted marks. A name muster does not write is left where it is
 * (with the folder), and said.
 */
export async function pruneReceipts(
  team: Team,
  now: number,
  report: { cleared: string[]; warnings: string[] },
) {
  for (const messageId of await listFolder(team.fs, team.paths.receipts)) {
    if (!validateId(messageId).ok) continue;
    const folder = team.paths.receiptFolder(messageId);
    const facts = await team.fs.lstat(folder).catch(() => undefined);
    if (!facts?.isDirectory || facts.isSymbolicLink) {
      report.warnings.push(`receipts/${messageId} is not a folder; skipped`);
      continue;
    }
    if (now - facts.mtimeMs <= RECEIPT_KEEP_MS) {
      await clearTemps(team, messageId, now, report);
      continue;
    }
    let foreign = false;
    for (const name of await listFolder(team.fs, folder)) {
      if (!isReceiptName(name)) {
        foreign = true;
        continue;
      }
      const removed = await unlinkIfPresent(team.fs, `${folder}/${name}`).catch(() => false);
      if (!removed && (await team.fs.lstat(`${folder}/${name}`).catch(() => undefined)))
        foreign = true;
    }
    if (foreign) {
      report.warnings.push(
        `receipts/${messageId} holds names muster does not write; left in place`,
      );
      continue;
    }
    // rmdir fails on anything planted since the listing; removeTree only where there is no rmdir.
    if (team.fs.rmdir) {
      const removed = await team.fs.rmdir(folder).then(
        () => true,
        () => false,
      );
      if (!removed) continue;
    } else await team.fs.removeTree(folder);
    report.cleared.push(`receipts/${messageId}`);
  }
}
