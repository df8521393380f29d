// Path patterns as git reads a `:(glob)` pathspec, relative to the repository root: `*` and `?`
// stay inside one folder, `**` as a whole segment crosses folders, `[…]` is a class, and a pattern
// with no wildcard names a file or a whole folder. Written here because the leaves import nothing,
// and only the subset leases need: no `.gitignore` rules (no basename matching, no negation).

/** A pattern compiled once, to be matched against many paths. */
export type PathPattern = {
  /** The pattern as normalised: no leading `./` or `/`, no trailing `/`, no empty segments. */
  source: string;
  segments: readonly string[];
  /** No wildcard at all: the pattern names one path, and everything under it as a folder. */
  literal: boolean;
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
  const segments = folded.split("/").filter((segment) => segment !== "");
  return {
    source: pattern,
    segments,
    literal: !segments.some(hasWildcard),
    ignoreCase,
  };
}

/** Whether `path` (relative to the root, `/`-separated) is covered by the pattern. */
export function matchesPath(pattern: PathPattern, path: string): boolean {
  const folded = pattern.ignoreCase ? path.toLowerCase() : path;
  const parts = folded.split("/").filter((part) => part !== "" && part !== ".");
  if (pattern.literal) {
    // A literal names the path itself and, as a folder, everything under it.
    if (parts.length < pattern.segments.length) return false;
    return pattern.segments.every((segment, index) => segment === parts[index]);
  }
  return matchSegments(pattern.segments, 0, parts, 0);
}

function matchSegments(
  pattern: readonly string[],
  at: number,
  parts: readonly string[],
  from: number,
): boolean {
  // Each `**` is tried against 0…n folders; patterns have at most 64 segments, paths are short.
  if (at === pattern.length) return from === parts.length;
  const segment = pattern[at] as string;
  if (segment === "**") {
    const last = at === pattern.length - 1;
    // A trailing `/**` matches everything inside, not the folder itself; a lone `**` matches all.
    if (last) return at === 0 ? parts.length > 0 : from < parts.length;
    for (let skip = from; skip <= parts.length; skip += 1) {
      if (matchSegments(pattern, at + 1, parts, skip)) return true;
    }
    return false;
  }
  if (from === parts.length) return false;
  return (
    matchSegment(segment, parts[from] as string) && matchSegments(pattern, at + 1, parts, from + 1)
  );
}

/** One segment against one file or folder name: `*`, `?`, `[…]` and `\` escapes. */
export function matchSegment(glob: string, name: string): boolean {
  let g = 0;
  let n = 0;
  let starG = -1;
  let starN = 0;
  while (n < name.length) {
    const char = glob[g];
    if (char === "*") {
      while (glob[g] === "*") g += 1;
      starG = g;
      starN = n;
      continue;
    }
    const step = char === undefined ? undefined : stepOne(glob, g, name[n] as string);
    if (step !== undefined) {
      g = step;
      n += 1;
      continue;
    }
    if (starG < 0) return false;
    starN += 1;
    n = starN;
    g = starG;
  }
  while (glob[g] === "*") g += 1;
  return g === glob.length;
}

/** Match one name character at glob position `g`; the next glob position, or undefined. */
function stepOne(glob: string, g: number, char: string): number | undefined {
  const token = glob[g];
  if (token === "?") return g + 1;
  if (token === "\\") return glob[g + 1] === char ? g + 2 : undefined;
  if (token === "[") {
    const klass = readClass(glob, g);
    if (klass === undefined) return char === "[" ? g + 1 : undefined;
    return klass.test(char) ? klass.end : undefined;
  }
  return token === char ? g + 1 : undefined;
}

const POSIX_CLASSES: Record<string, RegExp> = {
  alnum: /[\p{L}\p{N}]/u,
  alpha: /\p{L}/u,
  blank: /[ \t]/u,
  cntrl: /\p{Cc}/u,
  digit: /[0-9]/u,
  graph: /[^\s\p{Cc}]/u,
  lower: /\p{Ll}/u,
  print: /[^\p{Cc}]/u,
  punct: /[!-/:-@[-`{-~]/u,
  space: /\s/u,
  upper: /\p{Lu}/u,
  xdigit: /[0-9a-fA-F]/u,
};

type CharClass = { test: (char: string) => boolean; end: number };

/** Read `[…]` starting at `start`; undefined when it is not closed (then `[` is literal). */
function readClass(glob: string, start: number): CharClass | undefined {
  let at = start + 1;
  const negated = glob[at] === "!" || glob[at] === "^";
  if (negated) at += 1;
  const tests: ((char: string) => boolean)[] = [];
  let first = true;
  while (at < glob.length) {
    const char = glob[at] as string;
    if (char === "]" && !first) {
      const end = at + 1;
      return { test: (c) => tests.some((test) => test(c)) !== negated, end };
    }
    first = false;
    if (char === "[" && glob[at + 1] === ":") {
      const close = glob.indexOf(":]", at + 2);
      const posix = close < 0 ? undefined : POSIX_CLASSES[glob.slice(at + 2, close)];
      if (posix) {
        tests.push((c) => posix.test(c));
        at = close + 2;
        continue;
      }
    }
    let low = char;
    if (char === "\\" && at + 1 < glob.length) {
      at += 1;
      low = glob[at] as string;
    }
    if (glob[at + 1] === "-" && glob[at + 2] !== undefined && glob[at + 2] !== "]") {
      let high = glob[at + 2] as string;
      at += 3;
      if (high === "\\" && at < glob.length) {
        high = glob[at] as string;
        at += 1;
      }
      const [from, to] = [low, high];
      tests.push((c) => c >= from && c <= to);
      continue;
    }
    tests.push((c) => c === low);
    at += 1;
  }
  return undefined;
}
