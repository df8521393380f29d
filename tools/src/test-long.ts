// `pnpm test:long`: the proofs that take longer than `pnpm test` can afford, then the newcomer's
// two README commands replayed from a fresh clone on a bare PATH with no nats-server
// (first-hour.ts --tests), then a user's first hour (first-hour-user.ts): the packages published
// with `pnpm release` to a registry on loopback, the CLI installed from it globally, a spawned pi
// woken by mail, a lease and its holder's commit, and the install from a clone.
//
// A test file takes part by reading MUSTER_LONG_TESTS (directly, or through `LONG_TESTS` and
// `rounds()` from @muster/test-support): the crash storms run their many rounds, and tests kept
// for the long run only (a real engine's whole session) run at all. Files that do not read it
// prove nothing new here, since `pnpm test` ran them already, and are not run again.
//
//   node tools/src/test-long.ts [--list] [--exclude FILE-NAME …]
//
// --exclude leaves out test files by name (to run the rest while one is being mended).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT as root, testFiles, workspaceFolders } from "./test-run-files.ts";

const { values } = parseArgs({
  options: { list: { type: "boolean" }, exclude: { type: "string", multiple: true, default: [] } },
});
const MARK = /\b(MUSTER_LONG_TESTS|LONG_TESTS|rounds\()/;

const chosen = workspaceFolders()
  .map((folder) => ({
    folder,
    files: testFiles(folder).filter(
      (file) =>
        !values.exclude.includes(path.basename(file)) && MARK.test(readFileSync(file, "utf8")),
    ),
  }))
  .filter(({ files }) => files.length > 0);

for (const { folder, files } of chosen) {
  console.log(
    `test:long: ${path.relative(root, folder)}: ${files.map((f) => path.relative(folder, f)).join(", ")}`,
  );
}
if (values.list) process.exit(0);

const run = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) => {
  const result = spawnSync(command, args, {
    cwd,
    stdio: "inherit",
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) {
    console.error(
      `test:long: ${command} ${args.join(" ")} in ${path.relative(root, cwd) || "."} failed`,
    );
    process.exit(result.status ?? 1);
  }
};

// The tests run against the built packages, as in `pnpm test`.
run(
  path.join(root, "node_modules", ".bin", "turbo"),
  ["run", "build", "--output-logs=errors-only"],
  root,
);
// One Vitest run from the root, as `pnpm test` runs: each package's own config (its timeouts and
// set-up) applies to its files, and the root's janitor ends whatever a test left running (see
// leaked-processes.ts), which a package's own run would not. The files run one at a time: each
// storm is its own load (dozens of processes). Three roster files at once took 358 s at load 12
// and ran the 240-kill storm past its limit; one at a time, the three (board storm, real-fs races,
// 240-kill storm) took 58 s in CI on 2026-11-30.
run(
  process.execPath,
  [
    path.join(root, "node_modules", "vitest", "vitest.mjs"),
    "run",
    "--no-file-parallelism",
    ...chosen.flatMap(({ files }) => files.map((file) => path.relative(root, file))),
  ],
  root,
  { MUSTER_LONG_TESTS: "1" },
);
// Both README commands on a fresh clone with PATH=/usr/bin:/bin and no nats-server: the status,
// then the whole suite (`--tests`), which must name the NATS tests it skipped. A suite that fails
// is reported by the tests it names failed, each with the start of its error. It is bounded at 12
// minutes (its install, build and suite took 12 at a load of 30 on 2 cores on 2026-12-07; CI's
// own run of the suite is bounded at 8), so that test:long stays inside CI's 35-minute phase.
run(
  process.execPath,
  [path.join(root, "tools", "src", "first-hour.ts"), "--tests", "--tests-minutes", "12"],
  root,
);
// A user's first hour: `pnpm release` to verdaccio on loopback, `npm install -g @muster/cli` from
// it, each engine set up (pi's extension from that registry), doctor, a spawn refused with its fix
// and one that joins, mail that wakes it and a lease with its holder's commit; then
// tools/install-from-clone (about 5 minutes, 4 of them the release).
run(process.execPath, [path.join(root, "tools", "src", "first-hour-user.ts")], root);
