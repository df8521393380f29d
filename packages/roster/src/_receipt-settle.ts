// Receipts kept small, by prune: a settled receipt (every recipient read the message, or its mail
// moved on to whoever took its label) has its marks folded into one value per message; read mail's
// receipt is removed a day after its last mark. Never lost: a receipt while any recipient still
// holds the message unread, and a failed wake (never folded: the latest stands, so it may change;
// kept with its receipt for as long as retired mail is kept). The store only keeps values.
import { errorText } from "./_error.js";
import { EXPIRED_KEEP_DAYS } from "./_expire.js";
import { MAX_CLOCK_SKEW_MS } from "./_liveness.js";
import type { Report } from "./_prune-spaces.js";
import { checkMark, RECEIPT_KEEP_MS, type RecipientReceipt, recipientsOf } from "./_receipts.js";
import type { ListedReceipt, StoredMark } from "./_store.js";
import type { Team } from "./_team.js";

/** A receipt is folded once it has been settled this long, so the marks that trail a read are in. */
export const RECEIPT_SETTLE_MS = 60_000;
const FAILED_KEEP_MS = EXPIRED_KEEP_DAYS * 86_400_000;

/** Has every recipient read it (or had it moved on to the member that took its label)? */
const isSettled = (recipients: readonly RecipientReceipt[]) =>
  recipients.length > 0 &&
  recipients.every((each) => each.phases.acknowledged !== undefined || each.forwardedTo);

/** When the receipt last changed, by its marks; a mark dated beyond the skew bound is now. */
function lastMarkAt(marks: readonly StoredMark[], now: number): number {
  let last = 0;
  for (const mark of marks) {
    const at = Date.parse(mark.at);
    last = Math.max(last, at - now > MAX_CLOCK_SKEW_MS ? now : at);
  }
  return last;
}

/** Does any recipient that has not read the message still hold it unread in its mailbox? */
async function heldUnread(team: Team, messageId: string, recipients: RecipientReceipt[]) {
  for (const each of recipients) {
    if (each.phases.acknowledged !== undefined || each.forwardedTo) continue;
    const mail = await team.store.mail.get(each.id, messageId).catch(() => "unknown" as const);
    if (mail === "unknown" || (mail !== undefined && !mail.read)) return true;
  }
  return false;
}

/** What prune does with one receipt: nothing, fold its settled marks, or remove it whole. */
async function settleOne(team: Team, listed: ListedReceipt, now: number, report: Report) {
  const read = await team.store.receipts.read(listed.id);
  // What muster does not write is left where it is: the receipt with it (its remove says so).
  const marks = read.marks.filter(checkMark);
  const clean = read.strays.length === 0 && marks.length === read.marks.length;
  const recipients = recipientsOf(marks);
  const settled = isSettled(recipients);
  const idle = now - lastMarkAt(marks, now);
  const failed = recipients.some((each) => each.wakeFailed !== undefined);
  const removable =
    marks.length > 0 &&
    ((settled && !failed && idle > RECEIPT_KEEP_MS) ||
      (idle > FAILED_KEEP_MS && !(await heldUnread(team, listed.id, recipients))));
  if (removable) {
    const removed = await team.store.receipts.remove(listed.id);
    if (removed.removed) report.cleared.push(`receipts/${listed.id}`);
    report.warnings.push(...removed.warnings);
    return;
  }
  if (!clean || !settled || idle <= RECEIPT_SETTLE_MS || listed.folded) return;
  // A failed wake's mark stays loose: the latest stands, so it may be rewritten.
  const loose = marks.filter((mark) => !mark.folded && mark.phase !== "wake-failed");
  if (loose.length === 0) return;
  if (await team.store.receipts.fold(listed.id, loose)) report.compacted.push(listed.id);
}

/** Fold settled receipts and remove the ones past keeping; one bad receipt never stops the rest. */
export async function settleReceipts(team: Team, now: number, report: Report): Promise<void> {
  for (const listed of await team.store.receipts.list()) {
    try {
      await settleOne(team, listed, now, report);
    } catch (error) {
      report.warnings.push(`receipts/${listed.id} ${errorText(error)}; skipped`);
    }
  }
}
