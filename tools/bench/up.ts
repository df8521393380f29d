// `muster up` of a declared team of 3 and of 10 pi members (real pi, the faux model, a throwaway
// home) until all are on the roster, from outside tmux on a private server `up` starts itself,
// beside the same number of `muster spawn pi --window` one after another on a private server: the
// median (p50) of each, interleaved, and the ratio.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { assertPrivateSocket, startPrivateTmux, tmuxEnv } from "@muster/test-support";
import { type BenchRow, median } from "../src/bench-kit.ts";

const ROOT = path.resolve(import.meta.dirname, "..", "..", "packages");
const MUSTER = path.join(ROOT, "cli", "dist", "muster.js");
const PI = path.join(ROOT, "pi-extension");
const PI_CLI = path.join(PI, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
const EXTENSIONS = [
  path.join(PI, "dist", "muster", "index.js"),
  path.join(PI, "test", "faux-extension.ts"),
];
const MODEL = ["--provider", "faux", "--model", "faux-1", "--offline"];
const RUNS = 3;

function muster(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    execFile(process.execPath, [MUSTER, ...args], { cwd, env, timeout: 300_000 }, (error) => {
      if (error) reject(new Error(`muster ${args.join(" ")}: ${error.message}`));
      else resolve(performance.now() - started);
    });
  });
}

/** A scratch repository whose muster.toml declares `count` pi members, and its environment. */
function scratchTeam(count: number, wrapped = true) {
  const scratch = mkdtempSync(path.join(tmpdir(), "muster-bench-up-"));
  const home = path.join(scratch, "home");
  const repo = path.join(scratch, "repo");
  for (const folder of [path.join(home, "bin"), path.join(home, "tmp"), repo])
    mkdirSync(folder, { recursive: true });
  // Declared args may only choose the model: muster's extension is installed in the home's pi
  // settings as `muster install pi` from a folder leaves it (up refuses a pi not set up for
  // muster), and the wrapper brings the faux model.
  const pi = path.join(home, "bin", "pi");
  if (wrapped) {
    writeFileSync(
      pi,
      `#!/bin/sh\nexec '${process.execPath}' '${PI_CLI}' -e '${EXTENSIONS[1]}' "$@"\n`,
    );
    chmodSync(pi, 0o755);
    const agent = path.join(home, ".pi", "agent");
    mkdirSync(agent, { recursive: true });
    writeFileSync(path.join(agent, "settings.json"), JSON.stringify({ packages: [PI] }));
  } else symlinkSync(PI_CLI, pi);
  const args = `args = [${MODEL.map((arg) => `"${arg}"`).join(", ")}]`;
  const tables = Array.from(
    { length: count },
    (_, index) => `[[member]]\nlabel = "m${index}"\nengine = "pi"\n${args}\n`,
  );
  writeFileSync(path.join(repo, "muster.toml"), tables.join("\n"));
  const env = tmuxEnv({
    HOME: home,
    TMPDIR: path.join(home, "tmp"),
    PATH: `${path.join(home, "bin")}:${path.dirname(process.execPath)}:${process.env.PATH}`,
    MUSTER_TEAM_DIR: path.join(scratch, "team"),
  });
  return { scratch, repo, env };
}

/** `muster up` of the declared team, on a server it starts; then down, and the server killed. */
async function upOnce(count: number): Promise<number> {
  const { scratch, repo, env } = scratchTeam(count);
  const server = `muster-test-${randomBytes(6).toString("hex")}`;
  try {
    const took = await muster(["up", "--json", "-L", server], repo, env);
    await muster(["down", "-L", server], repo, env);
    return took;
  } finally {
    const kill = ["-L", server, "kill-server"];
    assertPrivateSocket(kill);
    await new Promise((resolve) => execFile("tmux", kill, { env }, resolve));
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The same number of `muster spawn pi --window`, one after another, on a private server. */
async function spawnsOnce(count: number): Promise<number> {
  const { scratch, repo, env } = scratchTeam(0, false);
  const piArgs = [...EXTENSIONS.flatMap((file) => ["-e", file]), ...MODEL];
  const server = startPrivateTmux({ for: "bench", command: "sleep 600", env });
  try {
    let took = 0;
    for (let index = 0; index < count; index += 1)
      took += await muster(
        [
          "spawn",
          "pi",
          "--window",
          "--label",
          `m${index}`,
          "--json",
          "-L",
          server.name,
          "--",
          ...piArgs,
        ],
        repo,
        env,
      );
    for (let index = 0; index < count; index += 1)
      await muster(["stop", `m${index}`, "-L", server.name], repo, env);
    return took;
  } finally {
    server.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const count of [3, 10]) {
    const ups: number[] = [];
    const spawns: number[] = [];
    for (let index = 0; index < RUNS; index += 1) {
      ups.push(await upOnce(count));
      spawns.push(await spawnsOnce(count));
    }
    const reference = {
      name: `${count} × muster spawn pi --window, one after another`,
      medianMs: median(spawns),
    };
    rows.push({
      name: `up: muster up of ${count} pi members until all are on the roster (tmux started by up)`,
      medianMs: median(ups),
      reference,
      note: `p50 of ${RUNS} runs; up ${ups.map((ms) => ms.toFixed(0)).join(", ")} ms; spawns ${spawns.map((ms) => ms.toFixed(0)).join(", ")} ms`,
    });
  }
  return rows;
}
