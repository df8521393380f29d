import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { patternsOverlap } from "./_overlap.js";
import { compilePattern, matchesPath } from "./_wildmatch.js";
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
