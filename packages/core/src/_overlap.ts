// Whether two path patterns can name a common path. Exact where one side is literal; between two
// wildcards it answers "yes" whenever it cannot rule a common path out (a lease conflict that is
// not there costs a message; one that is missed costs an overwrite).
import { matchSegment, type PathPattern } from "./_wildmatch.js";

/** Whether some path could be covered by both patterns. Conservative: may say yes wrongly, never no. */
export function patternsOverlap(a: PathPattern, b: PathPattern): boolean {
  const ignoreCase = a.ignoreCase || b.ignoreCase;
  const left = expand(a, ignoreCase);
  const right = expand(b, ignoreCase);
  return overlapFrom(left, 0, right, 0, new Map());
}

/** A literal pattern also names everything under it: `src` is `src` or `src/**`. */
function expand(pattern: PathPattern, ignoreCase: boolean): readonly string[] {
  const segments =
    ignoreCase && !pattern.ignoreCase
      ? pattern.segments.map((segment) => segment.toLowerCase())
      : pattern.segments;
  return pattern.literal ? [...segments, OPTIONAL_REST] : segments;
}

/** Zero or more further folders: what a literal pattern covers beneath itself. */
const OPTIONAL_REST = "\u0000rest";

const anything = (segment: string | undefined) => segment === "**" || segment === OPTIONAL_REST;

function overlapFrom(
  a: readonly string[],
  i: number,
  b: readonly string[],
  j: number,
  seen: Map<number, boolean>,
): boolean {
  const key = i * 1024 + j;
  const known = seen.get(key);
  if (known !== undefined) return known;
  const answer = decide(a, i, b, j, seen);
  seen.set(key, answer);
  return answer;
}

function decide(
  a: readonly string[],
  i: number,
  b: readonly string[],
  j: number,
  seen: Map<number, boolean>,
): boolean {
  const headA = a[i];
  const headB = b[j];
  if (headA === undefined && headB === undefined) return true;
  if (headA === undefined) return onlyOptional(b, j);
  if (headB === undefined) return onlyOptional(a, i);
  if (anything(headA) || anything(headB)) {
    // A `**` takes none of the other side's segments, or one more of them.
    return (
      (anything(headA) && overlapFrom(a, i + 1, b, j, seen)) ||
      (anything(headB) && overlapFrom(a, i, b, j + 1, seen)) ||
      (anything(headA) && !anything(headB) && overlapFrom(a, i, b, j + 1, seen)) ||
      (anything(headB) && !anything(headA) && overlapFrom(a, i + 1, b, j, seen)) ||
      (anything(headA) && anything(headB) && overlapFrom(a, i + 1, b, j + 1, seen))
    );
  }
  return segmentsOverlap(headA, headB) && overlapFrom(a, i + 1, b, j + 1, seen);
}

/** Whether what is left can match no segment at all (a `**` is taken as able to: conservative). */
function onlyOptional(segments: readonly string[], from: number): boolean {
  return segments.slice(from).every(anything);
}

const SEGMENT_WILDCARD = /[*?[\\]/u;

/** Two single-segment globs: exact when one is plain, else compare the fixed start and end. */
function segmentsOverlap(a: string, b: string): boolean {
  const wildA = SEGMENT_WILDCARD.test(a);
  const wildB = SEGMENT_WILDCARD.test(b);
  if (!wildA && !wildB) return a === b;
  if (!wildA) return matchSegment(b, a);
  if (!wildB) return matchSegment(a, b);
  const startA = fixedStart(a);
  const startB = fixedStart(b);
  const endA = fixedEnd(a);
  const endB = fixedEnd(b);
  const startsAgree = startA.startsWith(startB) || startB.startsWith(startA);
  const endsAgree = endA.endsWith(endB) || endB.endsWith(endA);
  return startsAgree && endsAgree;
}

const fixedStart = (glob: string) => glob.slice(0, glob.search(SEGMENT_WILDCARD));

function fixedEnd(glob: string): string {
  let end = glob.length;
  while (end > 0 && !/[*?\]\\]/u.test(glob[end - 1] as string)) end -= 1;
  // An escaped character or a class end before the fixed tail makes it uncertain: keep it short.
  return glob.slice(end);
}
