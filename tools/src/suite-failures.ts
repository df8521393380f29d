// What a failed `pnpm test` says went wrong, picked out of its whole output for a replay's report
// (first-hour.ts): the tail of a run is turbo's summary, which names no test. Vitest's summary
// blocks (` FAIL  <package> <file> > <test>`, each followed by its error) are taken whole, a few
// lines each; a run ended before its summary (killed at its time limit) still marked each failed
// test with `×` and each file with failures with `❯ … failed`, and those are taken instead. Other
// steps' failures (a type error, a lint) are the lines that say so. Pure: text in, lines out.
import { stripVTControlCharacters } from "node:util";

/** Turbo's prefix on a task's lines (`//:test:vitest: `, `@muster/cli:build: `). */
const TURBO_PREFIX = /^(?:\/\/|@[\w.-]+\/[\w.-]+|[\w.-]+):[\w:#-]+: /;
/** The line between two of Vitest's summary blocks: a row of ⎯. */
const RULE = /^\s*⎯{3,}/;
const FAIL_BLOCK = /^\s*FAIL\s+\S/;
const FAILED_MARK = /^\s*(?:×|✗)\s+\S|^\s*❯\s+.*\d+ failed/;
const OTHER_ERROR = /error TS\d+|ERR_PNPM_\w+|^\s*ERROR\s+run failed|\bTests?\s+\d+ failed/;

/** The output's lines, uncoloured and without turbo's prefixes. */
export const plainLines = (output: string) =>
  stripVTControlCharacters(output)
    .split("\n")
    .map((line) => line.replace(TURBO_PREFIX, "").trimEnd());

/**
 * The failures a test run's `output` names: each of Vitest's FAIL blocks with up to `errorLines`
 * lines of its error, else each test and file marked failed; then the other steps' error lines.
 * Empty when it names none (then only its tail can tell).
 */
export function suiteFailures(output: string, errorLines = 8): string[] {
  const lines = plainLines(output);
  const found: string[] = [];
  lines.forEach((line, at) => {
    if (!FAIL_BLOCK.test(line)) return;
    const after = lines.slice(at + 1, at + 1 + errorLines + 4);
    const end = after.findIndex((next) => RULE.test(next) || FAIL_BLOCK.test(next));
    const error = (end < 0 ? after : after.slice(0, end)).filter((next) => next.trim() !== "");
    found.push(line.trim(), ...error.slice(0, errorLines).map((next) => `    ${next.trim()}`));
  });
  if (found.length === 0)
    found.push(...lines.filter((line) => FAILED_MARK.test(line)).map((line) => line.trim()));
  const others = lines.filter((line) => OTHER_ERROR.test(line)).map((line) => line.trim());
  return [...found, ...new Set(others)];
}
