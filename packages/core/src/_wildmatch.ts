// Path patterns as git reads a `:(glob)` pathspec, relative to the repository root: `*` and `?`
// stay inside one folder, `**` as a whole segment crosses folders, `[…]` is a class, and a pattern
// with no wildcard names a file or a whole folder. Written here because the leaves import nothing,
// and only the subset leases need: no `.gitignore` rules (no basename matching, no negation).
// Matching is linear in the path for every pattern accepted (see `matchSegments`): a lease anyone
// on the team may take is checked on every guarded edit and commit.
import { compileSegment, matchCompiled, type SegmentGlob } from "./_segment-glob.js";

export { matchSegment } from "./_segment-glob.js";

/** A pattern compiled once, to be matched against many paths. */
export type PathPattern = {
  /** The pattern as normalised: no leading `./` or `/`, no trailing `/`, no empty segments. */
  source: string;
  segments: readonly string[];
  /** Each segment's glob compiled once (`undefined` for `**`), in the order of `segments`. */
  globs: readonly (SegmentGlob | undefined)[];
  /** No wildcard at all: the pattern names one path, and everything under it as a folder. */
  literal: boolean;
  /** The fewest parts a covered path has, and the most (`Infinity` past a `**`): a quick no. */
  minParts: number;
  maxParts: number;
  ignoreCase: boolean;
};

export type PatternCheck =
  | { ok: true; pattern: string }
  | { ok: false; reason: "bad-pattern"; error: string };

const WILDCARD = /[*?[\\]/u;

/** Whether one segment holds a wildcard (a backslash escape counts: it is not plain text). */
export const hasWildcard = (segment: string): boolean => WILDCARD.test(segment);

/**
 * Normalise a pattern a person or an agent typed, relative to the repository root. Refuses what
 * could name something outside it (`..`), control characters, and an empty pattern.
 */
export function normalisePattern(input: string): PatternCheck {
  const bad = (error: string): PatternCheck => ({ ok: false, reason: "bad-pattern", error });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/u.test(input))
    return bad("a path pattern may not hold control characters");
  const segments = input
    .replace(/^(?:\.?\/)+/u, "")
    .split("/")
    .filter((segment) => segment !== "" && segment !== ".");
  if (segments.length === 0) return bad("a path pattern may not be empty");
  if (segments.includes("..")) return bad(`"${input}" leaves the repository (..)`);
  if (segments.length > 64) return bad("a path pattern may have at most 64 folders");
  if (input.length > 1024) return bad("a path pattern may be at most 1024 characters");
  return { ok: true, pattern: segments.join("/") };
}

/** Compile a normalised pattern (see `normalisePattern`). */
export function compilePattern(pattern: string, ignoreCase = false): PathPattern {
  const folded = ignoreCase ? pattern.toLowerCase() : pattern;
  // `**/**` covers what one `**` covers, in every place: the repeats go, and with them states.
  const segments = folded
    .split("/")
    .filter(
      (segment, index, all) => segment !== "" && !(segment === "**" && all[index - 1] === "**"),
    );
  const literal = !segments.some(hasWildcard);
  const named = segments.filter((segment) => segment !== "**").length;
  const trailing = segments.at(-1) === "**" ? 1 : 0;
  return {
    source: pattern,
    segments,
    globs: segments.map((segment) => (segment === "**" ? undefined : compileSegment(segment))),
    literal,
    minParts: named + trailing,
    maxParts: literal || segments.includes("**") ? Number.POSITIVE_INFINITY : segments.length,
    ignoreCase,
  };
}

/** A path as matching reads it: its segments, `.` and empty ones dropped, folded when asked. */
export function pathParts(path: string, ignoreCase: boolean): string[] {
  const folded = ignoreCase ? path.toLowerCase() : path;
  return folded.split("/").filter((part) => part !== "" && part !== ".");
}

/** Whether `path` (relative to the root, `/`-separated) is covered by the pattern. */
export function matchesPath(pattern: PathPattern, path: string): boolean {
  return matchesParts(pattern, pathParts(path, pattern.ignoreCase));
}

/** `matchesPath` for a path already split by `pathParts` (with the pattern's `ignoreCase`). */
export function matchesParts(pattern: PathPattern, parts: readonly string[]): boolean {
  const { segments } = pattern;
  if (pattern.literal) {
    // A literal names the path itself and, as a folder, everything under it.
    if (parts.length < segments.length) return false;
    return segments.every((segment, index) => segment === parts[index]);
  }
  if (parts.length < pattern.minParts || parts.length > pattern.maxParts) return false;
  // A pattern that ends in a name must match the path's last part: the cheapest no, tried first.
  const end = pattern.globs.at(-1);
  if (end !== undefined && !matchCompiled(end, parts.at(-1) as string)) return false;
  return matchSegments(pattern, parts);
}

/**
 * The segments against the parts, as a glob's `*` is matched against characters: `**` is a star
 * over whole parts, every other segment takes exactly one part it matches, and on a mismatch the
 * last `**` takes one more part and the walk resumes just after it. Only the last `**` is ever
 * revisited, so the work is at most parts × segments, however many `**` there are (trying every
 * split of the path among them, as a backtracking matcher does, is exponential: 13 s per path at
 * 22 `**`). A `**` inside takes zero or more parts; a trailing one takes one or more (everything
 * inside a folder, not the folder itself), so it is walked as a one-part step and then a star.
 */
function matchSegments(pattern: PathPattern, parts: readonly string[]): boolean {
  const { segments, globs } = pattern;
  const size = segments.length;
  const trailing = segments[size - 1] === "**";
  const steps = trailing ? size + 1 : size;
  let at = 0;
  let part = 0;
  let star = -1;
  let starPart = 0;
  while (part < parts.length) {
    if (at < steps) {
      // Step `at` is a star: a `**` inside, or the star after a trailing `**`'s first part.
      const isStar = trailing
        ? at === size || (at < size - 1 && segments[at] === "**")
        : segments[at] === "**";
      if (isStar) {
        at += 1;
        star = at;
        starPart = part;
        continue;
      }
      const glob = globs[at];
      if (glob === undefined || matchCompiled(glob, parts[part] as string)) {
        at += 1;
        part += 1;
        continue;
      }
    }
    if (star < 0) return false;
    starPart += 1;
    part = starPart;
    at = star;
  }
  while (at < steps && isStar(segments, trailing, at)) at += 1;
  return at === steps;
}

/** Whether step `at` is a star: a `**` inside, or the star after a trailing `**`'s first part. */
function isStar(segments: readonly string[], trailing: boolean, at: number): boolean {
  const size = segments.length;
  if (trailing && at >= size - 1) return at === size;
  return segments[at] === "**";
}
