// What a lease taker is told besides the lease itself: a pattern that covers no file of the
// repository (a typo such as `scr/**` leases nothing anyone edits), and that leases are only
// advisory for commits where muster's git hook is not installed. Pure: the caller lists the files
// and reads the hooks; these rules decide what is said.
import { compilePattern, matchesPath } from "./_wildmatch.js";

/** The patterns among `patterns` (normalised) that cover none of `files` (relative paths). */
export function unmatchedPatterns(
  patterns: readonly string[],
  files: readonly string[],
  ignoreCase = false,
): string[] {
  return patterns.filter((pattern) => {
    const compiled = compilePattern(pattern, ignoreCase);
    return !files.some((file) => matchesPath(compiled, file));
  });
}

/** What to do about a lease that covers nothing today. */
export const UNMATCHED_FIX = "check its spelling; release it with muster release if it is a typo";

/** The warning for a pattern that covers no file today (it still holds for files made later). */
export const unmatchedLine = (pattern: string): string =>
  `no file in the repository matches ${pattern} (a typo?); the lease holds for files made later; ${UNMATCHED_FIX}`;

/** What makes commits check leases. */
export const ADVISORY_FIX = "muster install git-hook";

/** The note for a lease taken where no muster git hook checks commits. */
export const advisoryLine = (): string =>
  `leases are advisory for commits here: no git hook of muster's checks them (edit guards in Claude Code and pi still do); ${ADVISORY_FIX} makes a commit that touches another member's lease refuse`;
