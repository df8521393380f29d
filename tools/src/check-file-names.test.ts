import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildEntries, checkFileNames, publishedPackages } from "./check-file-names.ts";

const repoRoot = path.resolve(import.meta.dirname, "..", "..");
const scratch = mkdtempSync(path.join(tmpdir(), "muster-names-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function fixture(build: string, files: string[]) {
  const dir = mkdtempSync(path.join(scratch, "pkg-"));
  mkdirSync(path.join(dir, "src"));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts: { build } }));
  for (const file of files) writeFileSync(path.join(dir, "src", file), "export {};\n");
  return dir;
}

describe("the `_` prefix rule", () => {
  it("every published package keeps it", () => {
    const packages = publishedPackages(repoRoot);
    expect(packages.length).toBeGreaterThanOrEqual(8);
    expect(packages.flatMap((dir) => checkFileNames(dir))).toEqual([]);
  });

  it("reads the entries from the build script and from tsup.config.ts", () => {
    expect(buildEntries(path.join(repoRoot, "packages", "mcp"))).toEqual(
      new Set(["index.ts", "stdio.ts", "engines.ts", "hooks.ts"]),
    );
    expect(buildEntries(path.join(repoRoot, "packages", "pi-extension"))).toEqual(
      new Set(["index.ts"]),
    );
    // The CLI's bin is built apart from its tsup entries (tools/src/first-module.ts).
    expect(buildEntries(path.join(repoRoot, "packages", "cli"))).toEqual(
      new Set(["index.ts", "start.ts", "muster.ts"]),
    );
  });

  it("reports a module without the prefix and an entry with it; tests are neither", () => {
    const dir = fixture("tsup src/index.ts src/_bin.ts", [
      "index.ts",
      "_bin.ts",
      "_inner.ts",
      "helper.ts",
      "x.test.ts",
      "y.test-d.ts",
    ]);
    const found = checkFileNames(dir).map((violation) => path.basename(violation.file));
    expect(found.sort()).toEqual(["_bin.ts", "helper.ts"]);
  });
});
