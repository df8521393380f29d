import path from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_FUNCTION_LINES, oversized, oversizedFunctions } from "./check-sizes.ts";

const repoRoot = path.resolve(import.meta.dirname, "..", "..");

// No file over 300 lines and no function over 80, with no exceptions: the list of older ones
// issue 35 found (its mail files, then 28 others) was emptied, so none is kept.

describe("the size check: files up to 300 lines, functions up to 80", () => {
  const found = oversized(repoRoot).map((entry) =>
    entry.name ? `${entry.file} ${entry.name}` : entry.file,
  );

  it("finds nothing over, anywhere", () => {
    expect(found).toEqual([]);
  });

  it("fails on a planted function one line over, and names it", () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES - 2 }, (_, n) => `  const v${n} = ${n};`);
    const text = [
      "export function fits() {",
      ...body,
      "}",
      "export const over = () => {",
      ...body,
      "  return 1;",
      "};",
    ].join("\n");
    expect(oversizedFunctions("planted.ts", text)).toEqual([
      { file: "planted.ts", name: "over", lines: MAX_FUNCTION_LINES + 1 },
    ]);
  });
});
