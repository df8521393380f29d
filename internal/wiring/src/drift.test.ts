// The contract checks can fail: the drift fixture compiles with an error on exactly its marked
// lines. tsc runs as a child process (through execa: its cost does not matter in a test).
import { readFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const fixture = path.resolve(import.meta.dirname, "..", "test", "drift.fixture.ts");
const project = path.resolve(import.meta.dirname, "..", "test", "tsconfig.drift.json");

/** The fixture marks each line that must fail with `// DRIFT <what drifted>`. */
const marked = readFileSync(fixture, "utf8")
  .split("\n")
  .flatMap((line, index) => (/\/\/ DRIFT .+$/.test(line) ? [index + 1] : []));

describe("the drift fixture", () => {
  it("fails to compile on exactly its marked lines, and nowhere else", async () => {
    const result = await execa("tsc", ["-p", project, "--pretty", "false"], {
      preferLocal: true,
      reject: false,
    });
    expect(result.exitCode).toBe(2);
    const failing = [
      ...new Set(
        [...result.stdout.matchAll(/drift\.fixture\.ts\((\d+),\d+\): error TS\d+/g)].map((match) =>
          Number(match[1]),
        ),
      ),
    ];
    expect(marked).toHaveLength(4);
    expect(failing).toEqual(marked);
  });
});
