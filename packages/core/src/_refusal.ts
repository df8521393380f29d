// What a refused join tells the reader: the reason as the roster gave it and, where the cause is
// known, the fix. The fix text lives here, next to the reasons it answers; composers only print it.
import type { Standing } from "./_types.js";

export type RefusalFixOptions = {
  /** Peers address this session by its label (a lead): renaming has a cost worth saying. */
  addressed?: boolean | undefined;
};

/** How to turn the roster on, for a session that has none. */
export const NO_ROSTER_FIX =
  "run inside a git repository or set MUSTER_TEAM_DIR to a folder you own, then join again";

/** The fix for a refusal, or undefined where the cause is not known well enough to advise. */
export function refusalFix(
  refusal: { reason: string; label: string; holderLabel?: string | undefined },
  options: RefusalFixOptions = {},
): string | undefined {
  const rename = options.addressed
    ? `or join under another name (peers address you as "${refusal.label}", so tell them the new one)`
    : "or join under another name";
  switch (refusal.reason) {
    case "no-roster":
      return NO_ROSTER_FIX;
    case "label-held":
      return `only that session's stop frees "${refusal.label}", ${rename}`;
    case "label-held-gone":
      return `"${refusal.label}" frees itself when the dead session's record ages out, ${rename}`;
    case "busy":
      return "try again in a moment";
    default:
      return undefined;
  }
}

/**
 * Whether a refused join's cause passes by itself, so the session's heartbeat asks again: the
 * folder being changed or deleted under it (`unwritable`, a join that threw) or a lock held a
 * moment (`busy`). A label another session holds, or a bad label or id, stays refused until the
 * user acts: asking again on every beat would only repeat the refusal.
 */
export function refusalPasses(reason: string): boolean {
  return reason === "unwritable" || reason === "busy" || reason === "join-failed";
}

/** Trailing punctuation a clause may end with, which a joined sentence must not double. */
const trimClause = (clause: string) => clause.trim().replace(/[\s.;:,]+$/u, "");

/** Join clauses into one sentence: `; ` between them, one full stop at the end (or its own ?/!). */
export function oneSentence(clauses: readonly string[]): string {
  const kept = clauses.map((clause) => clause.trim()).filter((clause) => clause.length > 0);
  if (kept.length === 0) return "";
  const last = kept[kept.length - 1] ?? "";
  const ending = /[?!]$/u.test(last) ? "" : ".";
  const body = kept.map((clause, index) =>
    index === kept.length - 1 && ending === "" ? clause : trimClause(clause),
  );
  const sentence = body.join("; ") + ending;
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

/**
 * A leaf's failure as the one line a composer shows: what happened, then what to do, joined by
 * `; `. Leaves keep the two apart (`error`, `fix`); this is the one place they meet.
 */
export function errorLine(failure: { error: string; fix?: string | undefined }): string {
  const fix = failure.fix?.trim();
  return fix ? `${trimClause(failure.error)}; ${fix}` : failure.error;
}

/** One sentence saying why a join failed and, where known, what to do. Empty for a success. */
export function joinFailureLine(standing: Standing, options: RefusalFixOptions = {}): string {
  if (standing.ok) return "";
  const reason =
    standing.holderLabel && !standing.error.includes(standing.holderLabel)
      ? `${trimClause(standing.error)} (held by ${standing.holderLabel})`
      : standing.error;
  return oneSentence([
    `could not join as "${standing.label}": ${reason}`,
    standing.fix ?? refusalFix(standing, options) ?? "",
  ]);
}
