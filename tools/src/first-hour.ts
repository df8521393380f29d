// A newcomer's first hour, replayed: a fresh clone of this repository's HEAD, a throwaway HOME,
// and a PATH that holds an old Node with npm and nothing of ours. The README's first command must
// print muster's status; with --tests, its second command must pass the whole suite there too,
// with no nats-server (hidden even where the machine has one): the run must name the NATS tests
// it skipped. Run by `pnpm test:long` (with --tests). Needs the npm registry, nothing else.
// A suite that fails is reported by the tests it names failed, each with the start of its error
// (suite-failures.ts), and its whole output is kept in a file the report names. The suite is
// bounded (--tests-minutes): past it, its whole process group is ended and that is the failure.
//
//   node tools/src/first-hour.ts [--tests] [--tests-minutes 12] [--path /usr/bin:/bin]
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { bounded, endCommands } from "./replay-steps.ts";
import { plainLines, suiteFailures } from "./suite-failures.ts";

const { values } = parseArgs({
  options: {
    tests: { type: "boolean" },
    "tests-minutes": { type: "string", default: "12" },
    path: { type: "string", default: "/usr/bin:/bin" },
  },
});
const repoRoot = path.resolve(import.meta.dirname, "..", "..");

/** The README's two commands, read from the README itself so the check cannot drift from it. */
function readmeCommands(): { main: string; tests: string } {
  const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```sh\n([^\n]+)\n```/g)].map((match) => match[1]!);
  const main = blocks.find((block) => block.includes("muster"));
  const tests = blocks.find((block) => / test$/.test(block));
  if (!main || !tests) throw new Error("README.md: cannot find the two commands in ```sh blocks");
  return { main, tests };
}

/** The run's word on the NATS tests it skipped: each line naming them, and the files listed under. */
function natsSkipped(output: string): string {
  const lines = output.split("\n");
  return lines
    .flatMap((line, at) => {
      if (!/nats-server.*skipped/.test(line)) return [];
      const after = lines.slice(at + 1).findIndex((next) => !next.startsWith("  "));
      return [line, ...lines.slice(at + 1, after < 0 ? lines.length : at + 1 + after)];
    })
    .map((line) => `      ${line.trim()}`)
    .join("\n");
}

/**
 * The README's test command in the clone, bounded; what failed, in words (none when it passed and
 * named the NATS tests it skipped). Its whole output is kept outside the clone when it fails.
 */
async function replayTests(command: string, cwd: string, env: NodeJS.ProcessEnv) {
  const minutes = Number(values["tests-minutes"]);
  const log = path.join(tmpdir(), `muster-first-hour-tests-${process.pid}.log`);
  rmSync(log, { force: true });
  const began = Date.now();
  const ran = await bounded("sh", ["-c", command], { cwd, env, seconds: minutes * 60, log }).catch(
    (error: Error) => ({ status: -1, stdout: "", stderr: "", late: error.message }),
  );
  const took = `${Math.round((Date.now() - began) / 1000)} s`;
  const output = existsSync(log) ? readFileSync(log, "utf8") : "";
  const skipped = natsSkipped(plainLines(output).join("\n"));
  if (ran.status === 0 && skipped !== "") {
    rmSync(log, { force: true });
    console.log(`  ok  ${command} (${took}), its NATS tests named as skipped:\n${skipped}`);
    return [];
  }
  if (ran.status === 0) {
    rmSync(log, { force: true });
    return [`"${command}" passed with no nats-server but did not name the NATS tests skipped`];
  }
  const how =
    "late" in ran ? `was ended at its limit of ${minutes} minutes` : `exited ${ran.status}`;
  const named = suiteFailures(output);
  const tail = plainLines(output).slice(-15).join("\n");
  return [
    `"${command}" ${how} after ${took}; ${
      named.length > 0 ? `what it names failed:\n${named.join("\n")}` : "it names no failed test"
    }\n--- its last lines:\n${tail}\n--- its whole output: ${log}`,
  ];
}

// The suite runs in a process group of its own: an interrupt (a CI phase's limit) ends it too.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    endCommands();
    process.exit(1);
  });

const work = mkdtempSync(path.join(tmpdir(), "muster-first-hour-"));
const failures: string[] = [];
try {
  const home = path.join(work, "home");
  const clone = path.join(work, "muster");
  mkdirSync(home);
  execFileSync("git", ["clone", "--quiet", repoRoot, clone]);
  // Only what a bare machine has: its PATH, a HOME of its own, no tmux server of ours (a private
  // tmux socket folder), and the proxy and certificate settings the machine reaches its registry
  // with (a registry mirror behind a TLS-inspecting proxy needs its CA).
  const passed = [
    ...["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"],
    ...["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR"],
  ];
  const env: Record<string, string> = {
    PATH: values.path,
    HOME: home,
    TMUX_TMPDIR: work,
    LANG: "C.UTF-8",
    // A bare machine has no nats-server; the tests' finder also looks outside PATH (/usr/sbin),
    // and a MUSTER_NATS_SERVER that names nothing means "none here".
    MUSTER_NATS_SERVER: path.join(work, "no-nats-server"),
    ...Object.fromEntries(
      passed.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])),
    ),
  };
  const shell = (command: string) =>
    spawnSync("sh", ["-c", command], { cwd: clone, env, encoding: "utf8", timeout: 900_000 });
  const oldNode = spawnSync("sh", ["-c", "node --version; npm --version"], {
    env,
    encoding: "utf8",
  });
  console.log(
    `first-hour: PATH=${values.path}: node ${oldNode.stdout.trim().replace("\n", ", npm ")}`,
  );
  const { main, tests } = readmeCommands();

  const first = shell(main);
  // The README's sample: no one joined, and no tmux server (its wording is the CLI's to change).
  const expected =
    /^muster · team muster \(~\/\.local\/state\/muster\/teams\/muster-[0-9a-f]{12}\)\n\nMembers \(0\)\n {2}nobody has joined yet.*\n\nAgents in tmux\n {2}\S.*\n$/;
  const status = first.stdout.slice(first.stdout.lastIndexOf("muster · team"));
  if (first.status !== 0 || !expected.test(status)) {
    failures.push(`"${main}" exited ${first.status}:\n${first.stdout}${first.stderr}`);
  } else {
    console.log(`  ok  ${main}`);
  }
  // Once set up, the main job's output is muster's alone: nothing from pnpm or turbo around it.
  const again = shell(main.replace(/^.*&& /, ""));
  if (again.status !== 0 || !expected.test(again.stdout) || again.stderr !== "") {
    failures.push(
      `a second "${main}" printed more than muster's status:\n${again.stdout}${again.stderr}`,
    );
  } else {
    console.log("  ok  its output is muster's alone");
  }
  // Plain `pnpm muster` too, for someone who has pnpm 12 on PATH: no `$ …` line from pnpm.
  const plain = shell("./pnpmw exec pnpm muster --version");
  if (plain.status !== 0 || !/^\d+\.\d+\.\d+\n$/.test(plain.stdout) || plain.stderr !== "") {
    failures.push(
      `"pnpm muster --version" printed more than a version:\n${plain.stdout}${plain.stderr}`,
    );
  } else {
    console.log("  ok  pnpm muster --version prints the version alone");
  }
  if (values.tests) failures.push(...(await replayTests(tests, clone, env)));
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failures.length > 0) {
  for (const failure of failures) console.error(failure);
  console.error(`first-hour: ${failures.length} check(s) failed`);
  process.exit(1);
}
