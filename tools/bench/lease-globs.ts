// Lease matching under hostile globs: for every pattern shape `muster lease` accepts (literal, `*`,
// `?`, classes, escapes, `**` leading / inside / trailing / alone, runs of `**` up to the 64-segment
// limit, `**` alternating with names, a 1,000-character segment of stars), one deep path matched
// at 128 and at 2,048 segments (4,096 characters, PATH_MAX): linear matching costs about 16 times
// as much for 16 times the path (the backtracking matcher it replaced took 13 s per path at 22
// `**`). Then one ordinary path against 1,000 leases made to cost the most.
import { blockedPaths, compileLeases, type Lease, normalisePattern } from "@muster/core";
import { type BenchRow, compare } from "../src/bench-kit.ts";

/**
 * The shapes, each at its worst within the limits normalisePattern keeps (64 segments, 1,024
 * characters), with the last name of the path checked: it passes the quick checks (the number of
 * parts, the last name), so the whole path is walked.
 */
const SHAPES: [string, string, string][] = [
  ["literal, 63 folders", `${"a/".repeat(63)}zz`, "zz"],
  ["`*` and `?` segments", `${"*/?/".repeat(31)}zz`, "zz"],
  ["classes", `${"[a-c]/[[:alpha:]]/[!z]/".repeat(21)}zz`, "zz"],
  ["escapes", `${"\\a/\\*/".repeat(31)}zz`, "zz"],
  ["63 `**`, then a name", `${"**/".repeat(63)}zz`, "zz"],
  ["`**` alternating with a name", `${"**/a/".repeat(31)}zz`, "zz"],
  ["`**` alternating with `*`", `${"**/*/".repeat(31)}zz`, "zz"],
  ["`**` alternating with `a*`", `${"**/a*/".repeat(31)}zz`, "zz"],
  ["leading `**`", "**/a/zz", "zz"],
  ["trailing `**`", `${"a/".repeat(62)}**`, "zz"],
  ["a lone `**`", "**", "zz"],
  ["one segment of 1,000 stars and letters", `**/${"*a".repeat(500)}z`, `${"a".repeat(200)}z`],
];

const deepPath = (segments: number, last: string) => `${"a/".repeat(segments - 1)}${last}`;

const lease = (pattern: string, index: number): Lease => ({
  id: `l${index}`,
  holder: `peer${index % 16}`,
  holderId: `peer${index % 16}-id`,
  pattern,
  mode: "exclusive",
  takenAt: 0,
  expiresAt: Number.MAX_SAFE_INTEGER,
});

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  let sink = 0;
  for (const [shape, pattern, last] of SHAPES) {
    const short = deepPath(128, last);
    const long = deepPath(2048, last);
    const normal = normalisePattern(pattern);
    if (!normal.ok) throw new Error(`${shape}: ${normal.error}`);
    const compiled = compileLeases([lease(normal.pattern, 0)]);
    // Each run checks the path 20 times: one check alone is below the timer's resolution.
    const check = (path: string) => () => {
      for (let index = 0; index < 20; index += 1)
        sink += blockedPaths([path], compiled, "me").length;
    };
    const result = await compare(check(long), check(short), { warmup: 5, runs: 41 });
    const ratio = result.figureMs / Math.max(result.referenceMs, 1e-6);
    rows.push({
      name: `lease globs: ${shape}, 20 checks of a 2,048-segment path`,
      medianMs: result.figureMs,
      reference: { name: "the same at 128 segments", medianMs: result.referenceMs },
      // 16 times the path: linear is about 16 (with the path's own split and garbage on top);
      // a matcher exponential in the `**` is off the scale.
      target: { text: "ratio < 48 (linear)", met: ratio < 48 },
    });
  }
  // 1,000 leases made to cost the most for one ordinary path: each passes the quick checks (it
  // ends in `*.ts`, needs no more parts than the path has) and fails only at its end, so `**` and
  // its neighbours are tried at every part; none matches, so every one is walked.
  const TEMPLATES = [
    "**/a/**/b{n}/**/*.ts",
    "src/**/a*/**/?{n}/*.ts",
    "**/[a-c]/**/[[:digit:]]{n}/**/*.ts",
    "**/*/**/*/**/x{n}/*.ts",
  ];
  const hostile = compileLeases(
    Array.from({ length: 1_000 }, (_, index) =>
      lease((TEMPLATES[index % TEMPLATES.length] as string).replace("{n}", String(index)), index),
    ),
  );
  const path = "src/a/a/a/a/a/a/a/a/a/a/a/deep/inner/file.ts";
  const many = await compare(
    () => {
      sink += blockedPaths([path], hostile, "me").length;
    },
    () => {
      for (const entry of hostile) if (entry.pattern === path) sink += 1;
    },
    { warmup: 10, runs: 100 },
  );
  rows.push({
    name: "lease globs: one path against 1,000 hostile leases (compiled once)",
    medianMs: many.figureMs,
    reference: { name: "bare string compare over 1,000", medianMs: many.referenceMs },
    target: { text: "< 5 ms", met: many.figureMs < 5 },
  });
  if (sink < 0) console.error(sink);
  return rows;
}
