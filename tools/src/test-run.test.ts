// `pnpm test` runs every package's tests in one root Vitest run (vitest.config.ts lists the
// projects; each package's own vitest.config.ts picks its files). A project that picks nothing, or
// a workspace folder the list misses, would drop tests without a word: this compares the run's
// files with the test files on disk (the type tests, *.test-d.ts, are the type check's: see below).
// No file is left out where nats-server is missing: the cases that need one skip inside their
// files, and every file that starts one is seen to gate them.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import {
  NATS_GATE,
  natsGatedFiles,
  REPO_ROOT,
  startsNatsServer,
  testFiles,
  workspaceFolders,
} from "./test-run-files.ts";

const onDisk = workspaceFolders()
  .flatMap((folder) => testFiles(folder))
  .map((file) => path.relative(REPO_ROOT, file));

it("the root Vitest run holds every test file of every workspace folder", () => {
  expect(onDisk.length).toBeGreaterThan(70);
  const listed = execFileSync(
    path.join(REPO_ROOT, "node_modules", ".bin", "vitest"),
    ["list", "--filesOnly", "--json"],
    { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  const inRun = (JSON.parse(listed.slice(listed.indexOf("["))) as { file: string }[]).map((entry) =>
    path.relative(REPO_ROOT, entry.file),
  );
  expect(new Set(inRun)).toEqual(new Set(onDisk));
  expect(inRun.length).toBe(new Set(inRun).size);
}, 60_000);

it("every type test is compiled by its package's type check (test:types), the run's other half", () => {
  const typeTests = workspaceFolders().flatMap((folder) =>
    testFiles(folder, { typeTests: true })
      .filter((file) => file.endsWith(".test-d.ts"))
      .map((file) => ({ folder, file })),
  );
  expect(typeTests.length).toBeGreaterThan(0);
  for (const { folder, file } of typeTests) {
    const script = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8")).scripts
      ?.typecheck as string | undefined;
    const configs = [...(script ?? "").matchAll(/tsc -p (\S+)/g)].map((match) => match[1]!);
    const top = path.relative(folder, file).split(path.sep)[0];
    const included = configs.some((config) =>
      (JSON.parse(readFileSync(path.join(folder, config), "utf8")).include ?? []).includes(top),
    );
    expect(included, path.relative(REPO_ROOT, file)).toBe(true);
  }
});

it(`every test file that starts a nats-server gates those cases on ${NATS_GATE}`, () => {
  const starting = onDisk.filter((file) =>
    startsNatsServer(readFileSync(path.join(REPO_ROOT, file), "utf8")),
  );
  // The NATS store's files and the CLI's teams on NATS, at least.
  expect(starting.length).toBeGreaterThan(15);
  const gated = new Set(natsGatedFiles().map((file) => path.relative(REPO_ROOT, file)));
  expect(starting.filter((file) => !gated.has(file))).toEqual([]);
});
