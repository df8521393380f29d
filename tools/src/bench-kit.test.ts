// BENCHMARKS.md's table: a missed target is listed under it with the reason the benchmark found,
// or says that none is found; met targets and rows without one are not listed.
import { expect, it } from "vitest";
import { failedRow, formatTable } from "./bench-kit.ts";

it("lists each missed target under the table, with its reason or the want of one", () => {
  const table = formatTable([
    { name: "met", medianMs: 1, target: { text: "< 2 ms", met: true, whyMissed: "unused" } },
    { name: "plain", medianMs: 3 },
    { name: "slow", medianMs: 30, target: { text: "< 20 ms", met: false, whyMissed: "git." } },
    { name: "unknown", medianMs: 9, target: { text: "< 5 ms", met: false } },
  ]);
  const [rows, misses] = table.split("\n\nTargets missed in this run, and why:\n\n");
  expect(rows).toContain("| slow | 30.0 |  |  |  | < 20 ms | **no** |");
  expect(misses).toBe("- slow: git.\n- unknown: the reason is not found yet.");
});

it("adds nothing when every target is met", () => {
  const table = formatTable([{ name: "met", medianMs: 1, target: { text: "< 2 ms", met: true } }]);
  expect(table).not.toContain("Targets missed");
});

it("shows a benchmark that did not run as a missed target with its error, no figure", () => {
  const table = formatTable([failedRow("activity.ts", "no alert drawn for a3\n    at run")]);
  expect(table).toContain("| activity: did not run |  |  |  |  | runs to its end | **no** |");
  expect(table).toContain("- activity: did not run: no alert drawn for a3");
});
