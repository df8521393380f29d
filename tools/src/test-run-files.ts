// The test files of the workspace, as `pnpm test` and `pnpm test:long` see them, and the one rule
// for the tests that need a real nats-server: a file that starts one (through test-support's
// starters or the packages' test kits on them) gates those cases on NATS_SERVER_MISSING, so that
// where there is none they are skipped, and the run names the files (test-run-nats.ts).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export const REPO_ROOT = path.resolve(import.meta.dirname, "..", "..");

/** Not tests: dependencies, builds, and the fixtures of the repository's own checks. */
const NOT_TESTS = new Set(["node_modules", "dist", "fixtures"]);

function under(folder: string, isTest: (name: string) => boolean): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return NOT_TESTS.has(entry.name) ? [] : under(full, isTest);
    return isTest(entry.name) ? [full] : [];
  });
}

/** Every workspace folder with tests: each package, each internal package, and tools. */
export function workspaceFolders(root = REPO_ROOT): string[] {
  return ["packages", "internal"]
    .flatMap((group) =>
      readdirSync(path.join(root, group)).map((name) => path.join(root, group, name)),
    )
    .concat(path.join(root, "tools"));
}

/** Every test file (`*.test.ts`, and `*.test-d.ts` with `typeTests`) under `folder`, absolute. */
export function testFiles(folder: string, options: { typeTests?: boolean } = {}): string[] {
  const pattern = options.typeTests ? /\.test(-d)?\.ts$/ : /\.test\.ts$/;
  return under(folder, (name) => pattern.test(name));
}

/** What starts a real nats-server in a test file: test-support's starters, the packages' kits. */
const STARTS_NATS_SERVER =
  /\b(startNatsServer|startNatsCluster|startNatsTeam|startTeams|natsHarness|natsServerPath)\b/;
/** How such a file skips those cases where there is none. */
export const NATS_GATE = "NATS_SERVER_MISSING";

/** Whether a test file's text starts a real nats-server. */
export const startsNatsServer = (text: string): boolean => STARTS_NATS_SERVER.test(text);

/** The test files (absolute) that gate cases on there being a nats-server. */
export function natsGatedFiles(root = REPO_ROOT): string[] {
  return workspaceFolders(root)
    .flatMap((folder) => testFiles(folder))
    .filter((file) => readFileSync(file, "utf8").includes(NATS_GATE));
}
