import { describe, expect, it } from "vitest";
import { suiteFailures } from "./suite-failures.ts";

// Vitest 5.1.2's output of a file with a failed and a timed-out test, as `pnpm test` prints it
// through turbo (its prefix on each line), colours and all; then turbo's summary, which names no test.
const prefixed = (text: string) =>
  text
    .split("\n")
    .map((line) => `//:test:vitest: ${line}`)
    .join("\n");
const RULE = "⎯".repeat(30);
const run = prefixed(
  [
    " \x1b[31m❯\x1b[39m  @muster/repo-tools  src/probe.test.ts (3 tests | 2 failed) 511ms",
    "   \x1b[31m×\x1b[39m adds up 6ms",
    "   \x1b[31m×\x1b[39m waits too long 503ms",
    "   \x1b[32m✓\x1b[39m passes 0ms",
    "",
    `${RULE.slice(0, 7)} Failed Tests 2 ${RULE.slice(0, 7)}`,
    "",
    " \x1b[41mFAIL\x1b[49m  @muster/repo-tools  src/probe.test.ts > adds up",
    "AssertionError: expected 2 to be 3 // Object.is equality",
    "",
    "- Expected",
    "+ Received",
    " ❯ src/probe.test.ts:2:37",
    "",
    RULE,
    "",
    " FAIL   @muster/repo-tools  src/probe.test.ts > waits too long",
    "TestTimeoutError: Test timed out in 500ms.",
    RULE,
    "",
    " Test Files  1 failed (1)",
    "      Tests  2 failed | 1 passed (3)",
  ].join("\n"),
);
const turbo =
  " Tasks:    1 successful, 2 total\nFailed:    //#test:vitest\n ERROR  run failed: command  exited (1)";

describe("suiteFailures", () => {
  it("names each failed test with the start of its error, whatever turbo printed after", () => {
    expect(suiteFailures(`${run}\n${turbo}\n`, 3)).toEqual([
      "FAIL  @muster/repo-tools  src/probe.test.ts > adds up",
      "    AssertionError: expected 2 to be 3 // Object.is equality",
      "    - Expected",
      "    + Received",
      "FAIL   @muster/repo-tools  src/probe.test.ts > waits too long",
      "    TestTimeoutError: Test timed out in 500ms.",
      "Tests  2 failed | 1 passed (3)",
      "ERROR  run failed: command  exited (1)",
    ]);
  });

  it("a run ended before its summary: the tests and files it marked failed", () => {
    const cut = run.slice(0, run.indexOf("Failed Tests"));
    expect(suiteFailures(cut)).toEqual([
      "❯  @muster/repo-tools  src/probe.test.ts (3 tests | 2 failed) 511ms",
      "× adds up 6ms",
      "× waits too long 503ms",
    ]);
  });

  it("a step before the tests: its error lines; a run that names nothing: nothing", () => {
    const typeError =
      "//:test:types: packages/core/src/x.ts(3,7): error TS2322: Type 'string' is not assignable";
    expect(suiteFailures(`${typeError}\n${turbo}`)).toEqual([
      "packages/core/src/x.ts(3,7): error TS2322: Type 'string' is not assignable",
      "ERROR  run failed: command  exited (1)",
    ]);
    expect(suiteFailures("all good\n Tests  3 passed (3)\n")).toEqual([]);
  });
});
