// `pnpm test` runs every package's tests in one root Vitest run (vitest.config.ts lists the
// projects; each package's own vitest.config.ts picks its files). A project that picks nothing, or
// a workspace folder the list misses, would drop tests without a word: this compares the run's
// files with the test files on disk.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const repoRoot = path.resolve(import.meta.dirname, "..", "..");
const isTest = (name: string) => /\.test(-d)?\.ts$/.test(name);
/** Not tests: dependencies, builds, and the fixtures of the repository's own checks. */
const SKIPPED = new Set(["node_modules", "dist", "fixtures"]);

function testFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : testFiles(full);
    return isTest(entry.name) ? [full] : [];
  });
}

it("the root Vitest run holds every test file of every workspace folder", () => {
  const folders = ["packages", "internal"]
    .flatMap((group) =>
      readdirSync(path.join(repoRoot, group)).map((name) => path.join(repoRoot, group, name)),
    )
    .concat(path.join(repoRoot, "tools"));
  const onDisk = folders.flatMap(testFiles).map((file) => path.relative(repoRoot, file));
  expect(onDisk.length).toBeGreaterThan(70);

  const listed = execFileSync(
    path.join(repoRoot, "node_modules", ".bin", "vitest"),
    ["list", "--filesOnly", "--json"],
    { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  const inRun = (JSON.parse(listed.slice(listed.indexOf("["))) as { file: string }[]).map((entry) =>
    path.relative(repoRoot, entry.file),
  );
  expect(new Set(inRun)).toEqual(new Set(onDisk));
  expect(inRun.length).toBe(new Set(inRun).size);
}, 60_000);
