// One path segment's glob, compiled once: `*`, `?`, `[…]` classes (with POSIX names, ranges and
// negation) and `\` escapes, as git's wildmatch reads them inside one folder name. Matching is the
// greedy star walk over compiled tokens: O(tokens × name) at worst, never exponential, and a class
// is parsed once at compile time, not again at every character it is tried against.

/**
 * One compiled token: a run of `*`, any one character, one exact character, a class, or nothing
 * at all (a trailing `\`). One shape for all, so the matching loop stays monomorphic.
 */
type Token = {
  kind: "star" | "any" | "char" | "class" | "never";
  char: string;
  test: ((char: string) => boolean) | undefined;
};

/** A segment glob compiled to tokens; see `compileSegment`. */
export type SegmentGlob = readonly Token[];

const STAR: Token = { kind: "star", char: "", test: undefined };
const ANY: Token = { kind: "any", char: "", test: undefined };
const NEVER: Token = { kind: "never", char: "", test: undefined };
const literal = (char: string): Token => ({ kind: "char", char, test: undefined });
const klass = (test: (char: string) => boolean): Token => ({ kind: "class", char: "", test });

/** Whether one token takes this one character. */
function takes(token: Token, char: string): boolean {
  switch (token.kind) {
    case "char":
      return token.char === char;
    case "any":
      return true;
    case "class":
      return (token.test as (char: string) => boolean)(char);
    default:
      return false;
  }
}

/** Compile one segment glob. An unclosed `[` is a literal `[`; a trailing `\` matches nothing. */
export function compileSegment(glob: string): SegmentGlob {
  const tokens: Token[] = [];
  for (let at = 0; at < glob.length; ) {
    const char = glob[at] as string;
    if (char === "*") {
      if (tokens.at(-1) !== STAR) tokens.push(STAR);
      at += 1;
    } else if (char === "?") {
      tokens.push(ANY);
      at += 1;
    } else if (char === "\\") {
      const next = glob[at + 1];
      tokens.push(next === undefined ? NEVER : literal(next));
      at += 2;
    } else if (char === "[") {
      const read = readClass(glob, at);
      tokens.push(read ? klass(read.test) : literal("["));
      at = read ? read.end : at + 1;
    } else {
      tokens.push(literal(char));
      at += 1;
    }
  }
  return tokens;
}

/** Whether `name` (one file or folder name) matches the compiled glob. */
export function matchCompiled(tokens: SegmentGlob, name: string): boolean {
  let t = 0;
  let n = 0;
  let starT = -1;
  let starN = 0;
  while (n < name.length) {
    const token = tokens[t];
    if (token?.kind === "star") {
      t += 1;
      starT = t;
      starN = n;
      continue;
    }
    if (token !== undefined && takes(token, name[n] as string)) {
      t += 1;
      n += 1;
      continue;
    }
    // Give the last star one more character and try again from just after it.
    if (starT < 0) return false;
    starN += 1;
    n = starN;
    t = starT;
  }
  while (tokens[t]?.kind === "star") t += 1;
  return t === tokens.length;
}

/** One segment glob against one name, compiling it first (for a glob used once). */
export const matchSegment = (glob: string, name: string): boolean =>
  matchCompiled(compileSegment(glob), name);

/**
 * The POSIX classes, each made when a glob names it: a Unicode property class costs a start
 * about a millisecond to build, and a lease's globs seldom name one. Given as strings, never
 * literals: V8 builds a literal's classes when it parses the file, even in a function never run.
 */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: String.raw`[\p{L}\p{N}]`,
  alpha: String.raw`\p{L}`,
  blank: String.raw`[ \t]`,
  cntrl: String.raw`\p{Cc}`,
  digit: "[0-9]",
  graph: String.raw`[^\s\p{Cc}]`,
  lower: String.raw`\p{Ll}`,
  print: String.raw`[^\p{Cc}]`,
  punct: "[!-/:-@[-`{-~]",
  space: String.raw`\s`,
  upper: String.raw`\p{Lu}`,
  xdigit: "[0-9a-fA-F]",
};

/** The POSIX class `name` names (`alpha`), made now; undefined for any other word. */
const posixClass = (name: string): RegExp | undefined =>
  Object.hasOwn(POSIX_CLASSES, name) ? new RegExp(POSIX_CLASSES[name]!, "u") : undefined;

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
      const posix = close < 0 ? undefined : posixClass(glob.slice(at + 2, close));
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
