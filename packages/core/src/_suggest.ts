// The one rule for "did you mean": which known name a mistyped word most likely meant (a command,
// an engine, a subcommand, a member's label), for every door that names an unknown word back.

/**
 * The edits between two words, in any case: insertions, deletions, substitutions and swaps of two
 * neighbouring letters, each one edit (Damerau–Levenshtein, optimal string alignment).
 */
export function editDistance(from: string, to: string): number {
  const a = from.toLowerCase();
  const b = to.toLowerCase();
  // rows[i][j]: the edits between a's first i letters and b's first j.
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i]!;
      const above = rows[i - 1]!;
      row[j] = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

/** How far a word of this length may be from what it meant: none for one letter, one up to four. */
const reach = (length: number) => (length < 2 ? 0 : length <= 4 ? 1 : 2);

/**
 * The candidate nearest `word`, when it is within reach (one edit for a word of up to four letters,
 * two for a longer one) and no other candidate is as near; undefined otherwise.
 */
export function nearestName(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let tied = false;
  for (const candidate of new Set(candidates)) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      tied = false;
    } else if (distance === bestDistance) tied = true;
  }
  if (best === undefined || tied || bestDistance > reach(word.length)) return undefined;
  return best;
}

/** The clause a refusal names its suggestion in; empty when there is none. */
export const didYouMean = (suggestion: string | undefined) =>
  suggestion === undefined ? "" : `did you mean "${suggestion}"?`;

/**
 * A failure that named an unknown `word`, with the nearest of `candidates` as its `suggestion`:
 * the clause leads its fix (`…; did you mean "bob"? muster status lists the members`). Unchanged
 * when nothing is near.
 */
export function withSuggestion<Failure extends { error: string; fix?: string | undefined }>(
  failure: Failure,
  word: string,
  candidates: Iterable<string>,
): Failure & { suggestion?: string } {
  const suggestion = nearestName(word, candidates);
  if (suggestion === undefined) return failure;
  const clause = didYouMean(suggestion);
  return { ...failure, fix: failure.fix ? `${clause} ${failure.fix}` : clause, suggestion };
}
