import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { patternsOverlap } from "./_overlap.js";
import { compilePattern, matchesPath, matchSegment } from "./_wildmatch.js";
import { normalisePattern } from "./index.js";

// A repository whose files git lists for each pattern: our matcher must list the same ones.
const FILES = [
  "README.md",
  "A.md",
  "src/a.ts",
  "src/b.ts",
  "src/A.TS",
  "src/sub/x.ts",
  "src/sub/deep/y.ts",
  "src.ts",
  "srcx/z.ts",
  "docs/x.md",
  "docs/api/y.md",
  "a/b/c/d.txt",
  "a/d.txt",
  "x/y",
  "lib/[x].js",
  "lib/q?.js",
  "lib/star*.js",
  "lib/-dash.js",
  "lib/9.js",
  "test/a.test.ts",
  "test/unit/b.test.ts",
];

const PATTERNS = [
  "src",
  "src/",
  "./src",
  "src/*",
  "src/**",
  "src/**/*.ts",
  "**/*.ts",
  "**/x.ts",
  "*.md",
  "**/*.md",
  "docs/*.md",
  "docs/**",
  "sr*",
  "src*",
  "src?ts",
  "a/**/d.txt",
  "a/*/c",
  "a/*/c/*",
  "[sd]*/x.*",
  "[!s]*/x.*",
  "[^d]*/*.md",
  "src/[a-b].ts",
  "lib/\\[x\\].js",
  "lib/[[]x].js",
  "lib/q\\?.js",
  "lib/star\\*.js",
  "lib/[[:digit:]].js",
  "lib/[[:alpha:]-]*.js",
  "lib/[]-]dash.js",
  "**",
  "x",
  "x/**",
  "test/**/*.test.ts",
  "src/*/deep/**",
  "*",
  "*/*",
  "**/deep",
  "src/**/y.ts",
  "nothing/here",
];

let repo: string;

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), "muster-wildmatch-"));
  for (const file of FILES) {
    mkdirSync(join(repo, dirname(file)), { recursive: true });
    writeFileSync(join(repo, file), "");
  }
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "core.ignorecase=false", ...args], { cwd: repo, encoding: "utf8" });
  git("init", "-q");
  git("add", "-A");
});

afterAll(() => rmSync(repo, { recursive: true, force: true }));

function gitLists(pattern: string, icase: boolean): string[] {
  const magic = icase ? ":(glob,icase)" : ":(glob)";
  const out = execFileSync("git", ["ls-files", "-z", "--", `${magic}${pattern}`], {
    cwd: repo,
    encoding: "utf8",
  });
  return out.split("\0").filter(Boolean).sort();
}

function weList(pattern: string, icase: boolean): string[] {
  const normal = normalisePattern(pattern);
  if (!normal.ok) throw new Error(normal.error);
  const compiled = compilePattern(normal.pattern, icase);
  return FILES.filter((file) => matchesPath(compiled, file)).sort();
}

describe("matchesPath agrees with git's :(glob) pathspecs", () => {
  it.each(PATTERNS)("%s", (pattern) => {
    expect(weList(pattern, false)).toEqual(gitLists(pattern, false));
  });
  // git folds the path but not the letters inside a class (`[S]` never matches under icase); we fold
  // both, which covers more paths: for a lease, the safe side.
  it.each(["src/a.ts", "SRC/*.ts", "**/*.MD", "Src", "[s]rc/**"])(
    "%s, ignoring case",
    (pattern) => {
      expect(weList(pattern, true)).toEqual(gitLists(pattern, true));
    },
  );
  it("every pattern in the table lists at least one file somewhere, so agreement is not vacuous", () => {
    const listed = PATTERNS.filter((pattern) => gitLists(pattern, false).length > 0);
    expect(listed.length).toBeGreaterThan(PATTERNS.length - 5);
  });
});

describe("normalisePattern", () => {
  it.each([
    ["./src/a.ts", "src/a.ts"],
    ["/src//a.ts", "src/a.ts"],
    ["src/./a.ts", "src/a.ts"],
    ["docs/", "docs"],
  ])("%s -> %s", (input, output) => {
    expect(normalisePattern(input)).toEqual({ ok: true, pattern: output });
  });
  it.each([
    "",
    "/",
    "../etc/passwd",
    "src/../../x",
    "a\u001b]52;c;x\u0007",
    "a\nb",
    "a".repeat(1025),
  ])("refuses %j", (input) => {
    expect(normalisePattern(input)).toMatchObject({ ok: false, reason: "bad-pattern" });
  });
});

describe("patternsOverlap", () => {
  const overlap = (a: string, b: string, icase = false) =>
    patternsOverlap(compilePattern(a, icase), compilePattern(b, icase));
  it.each([
    ["src/**", "src/a.ts", true],
    ["src", "src/a.ts", true],
    ["src/a.ts", "src", true],
    ["*.md", "docs/x.md", false],
    ["**/*.md", "docs/x.md", true],
    ["docs/*.md", "*.md", false],
    ["src/*.ts", "src/*.js", false],
    ["src/*.ts", "src/a*", true],
    ["src/a.ts", "src/b.ts", false],
    ["src/**/*.ts", "**/sub/*", true],
    ["lib/**", "src/**", false],
    ["**", "anything/at/all", true],
    ["src/[ab].ts", "src/c.ts", false],
    ["src/[ab].ts", "src/b.ts", true],
    ["a/*/c", "a/b", true],
    ["a/*/c", "a/b/d", false],
    ["a/*/c", "a/b/c/d", false],
    ["a/**/c", "a/c", true],
  ] as const)("%s vs %s: %s", (a, b, expected) => {
    expect(overlap(a, b)).toBe(expected);
    expect(overlap(b, a)).toBe(expected);
  });
  it("folds case when asked", () => {
    expect(overlap("SRC/A.ts", "src/a.ts")).toBe(false);
    expect(overlap("SRC/A.ts", "src/a.ts", true)).toBe(true);
  });
  it("never says no where some path is covered by both (checked on every pair of the table)", () => {
    const paths = [...FILES, "src/a.js", "src/ab.ts", "docs/sub/z.md", "a/b/c/e/f.txt", "q.md"];
    let witnessed = 0;
    for (const a of PATTERNS) {
      for (const b of PATTERNS) {
        const left = compilePattern((normalisePattern(a) as { pattern: string }).pattern);
        const right = compilePattern((normalisePattern(b) as { pattern: string }).pattern);
        const shared = paths.some((path) => matchesPath(left, path) && matchesPath(right, path));
        if (!shared) continue;
        witnessed += 1;
        expect(patternsOverlap(left, right), `${a} vs ${b}`).toBe(true);
      }
    }
    expect(witnessed).toBeGreaterThan(200);
  });
});

// A lease anyone on the team may take is matched against every path of every guarded edit and
// commit: its cost must grow with the path, never with the number of ways `**` can split it.
describe("hostile patterns are matched in time linear in the path", () => {
  /** A compiled pattern whose segments count every read, and refuse past a budget. */
  function counted(pattern: string, budget: number) {
    const compiled = compilePattern(pattern);
    let reads = 0;
    const segments = new Proxy(compiled.segments as string[], {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) {
          reads += 1;
          if (reads > budget) throw new Error(`more than ${budget} segment reads`);
        }
        return Reflect.get(target, key, receiver);
      },
    });
    return { pattern: { ...compiled, segments }, reads: () => reads };
  }
  const deep = (count: number, last: string) => [...Array(count).fill("a"), last].join("/");
  // Each with whether it covers a/a/…/a/zy: the answer must not change, only its cost.
  const HOSTILE: [string, boolean][] = [
    // The one from the report: 26 `**` then a name, accepted at the 64-segment limit.
    [`${"**/".repeat(26)}zz`, false],
    [`${"**/a/".repeat(31)}zz`, false],
    [`${"**/*/".repeat(31)}zz`, false],
    [`${"**/".repeat(63)}**`, true],
    [`a/${"**/a*/".repeat(30)}b`, false],
    [`${"**/?/".repeat(31)}[!a]`, false],
    [`${"**/a/".repeat(4)}${"**/".repeat(20)}z?`, true],
  ];
  it.each(HOSTILE)(
    "%s: reads per path segment stay bounded by the pattern's size",
    (source, covers) => {
      const normal = normalisePattern(source);
      expect(normal.ok).toBe(true);
      const segments = compilePattern(source).segments.length;
      for (const length of [8, 32, 128]) {
        const path = deep(length, "zy");
        // Every pattern position may be live at every path segment, and no more than that.
        const budget = 4 * (length + 2) * (segments + 2);
        const { pattern, reads } = counted(source, budget);
        expect(matchesPath(pattern, path)).toBe(covers);
        expect(reads()).toBeLessThanOrEqual(budget);
      }
    },
  );
  it("a class named after an object's own key is no class: matched as [[:nosuch:]] is", () => {
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"])
      for (const path of ["x", "c", ":", "]x"])
        expect(matchSegment(`[[:${name}:]]x`, path), `${name} ${path}`).toBe(
          matchSegment("[[:nosuch:]]x", path),
        );
    expect(matchSegment("[[:alpha:]]x", "éx")).toBe(true);
    expect(matchSegment("[[:upper:]]x", "éx")).toBe(false);
  });
  it("a hostile pattern still matches what it names", () => {
    const matches = (source: string, path: string) =>
      matchesPath(counted(source, 100_000).pattern, path);
    expect(matches(`${"**/".repeat(26)}zz`, deep(40, "zz"))).toBe(true);
    expect(matches(`${"**/a/".repeat(31)}zz`, deep(40, "zz"))).toBe(true);
    expect(matches(`${"**/a/".repeat(31)}zz`, deep(30, "zz"))).toBe(false);
  });
});

// The matcher before it was made linear: every split of the path among the `**`, tried in turn.
// Exponential, but exact; on small patterns and paths it is the reference the new one must equal.
function referenceMatch(pattern: string, path: string): boolean {
  const segments = pattern.split("/");
  const parts = path.split("/").filter((part) => part !== "");
  if (!segments.some((segment) => /[*?[\\]/.test(segment)))
    return parts.length >= segments.length && segments.every((segment, i) => segment === parts[i]);
  const walk = (at: number, from: number): boolean => {
    if (at === segments.length) return from === parts.length;
    const segment = segments[at] as string;
    if (segment === "**") {
      if (at === segments.length - 1) return at === 0 ? parts.length > 0 : from < parts.length;
      for (let skip = from; skip <= parts.length; skip += 1) if (walk(at + 1, skip)) return true;
      return false;
    }
    return (
      from < parts.length && matchSegment(segment, parts[from] as string) && walk(at + 1, from + 1)
    );
  };
  return walk(0, 0);
}

describe("the linear matcher answers as the exhaustive one did", () => {
  it("on 20,000 random small patterns and paths", () => {
    // A fixed seed: the same cases every run.
    let seed = 42;
    const random = (count: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % count;
    };
    const PIECES = ["**", "*", "a", "b", "a*", "*b", "?", "[ab]", "[!a]", "a?b", "\\*"];
    const NAMES = ["a", "b", "ab", "ba", "aab", "*", "c"];
    let covered = 0;
    for (let index = 0; index < 20_000; index += 1) {
      const pattern = Array.from(
        { length: 1 + random(6) },
        () => PIECES[random(PIECES.length)],
      ).join("/");
      const path = Array.from({ length: 1 + random(7) }, () => NAMES[random(NAMES.length)]).join(
        "/",
      );
      const expected = referenceMatch(pattern, path);
      if (expected) covered += 1;
      expect(matchesPath(compilePattern(pattern), path), `${pattern} vs ${path}`).toBe(expected);
    }
    // Both answers are common, so agreement is not agreement on "no".
    expect(covered).toBeGreaterThan(1_000);
    expect(covered).toBeLessThan(18_000);
  });
});
