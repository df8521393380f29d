// A repository with a declared team, for the tests of `muster up` that run the built binary from
// outside tmux: a throwaway HOME whose `pi` is real pi with muster's extension and the faux model
// (offline), a git repository, a team folder, a private tmux server (`-L` name, or `-S` socket in
// the home; started by whoever runs first: `up` or the test), and `muster` run against them. `close()` kills that server and
// removes the home.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { assertPrivateSocket, tmuxEnv } from "@muster/test-support";

export const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const PI_PACKAGE = path.resolve(import.meta.dirname, "..", "..", "pi-extension");
const PI_CLI = path.join(
  PI_PACKAGE,
  "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js",
);
const FAUX = path.join(PI_PACKAGE, "test", "faux-extension.ts");

/** A declared pi member's `args`: the faux model, offline. */
export const PI_ARGS = 'args = ["--provider", "faux", "--model", "faux-1", "--offline"]';

export type Run = { status: number | null; stdout: string; stderr: string };

export type UpKit = {
  home: string;
  repo: string;
  team: string;
  /** A folder at the front of PATH (holds `pi`). */
  bin: string;
  /** The private tmux server's name (`-L`, or the file name of its `-S` socket). */
  server: string;
  /** How muster and tmux are told the server: `-L name`, or `-S path` (upKit's `socket`). */
  serverFlag: string[];
  env: NodeJS.ProcessEnv;
  muster(args: string[]): Promise<Run>;
  /** muster started and left running (to be killed by the test): its process. */
  spawnMuster(args: string[]): ChildProcess;
  tmux(...args: string[]): string;
  serverRuns(): boolean;
  /** Write the repository's muster.toml. */
  declare(text: string): void;
  close(): void;
};

/**
 * `pi` in `bin` with the faux provider (offline), and muster's extension installed in `home`'s pi
 * settings as `muster install pi` from a folder leaves it (so `up` finds pi set up for muster).
 */
export function writePi(bin: string, home: string) {
  const wrapper = path.join(bin, "pi");
  writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${PI_CLI}' -e '${FAUX}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  const agent = path.join(home, ".pi", "agent");
  mkdirSync(agent, { recursive: true });
  writeFileSync(path.join(agent, "settings.json"), JSON.stringify({ packages: [PI_PACKAGE] }));
}

export function upKit(
  prefix: string,
  extra: NodeJS.ProcessEnv = {},
  options: { socket?: boolean } = {},
): UpKit {
  const home = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  const repo = path.join(home, "repo");
  const team = path.join(home, "team");
  const bin = path.join(home, "bin");
  for (const folder of [repo, bin, path.join(home, "tmp")]) mkdirSync(folder, { recursive: true });
  writePi(bin, home);
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", repo, ...args], { env: { ...process.env, HOME: home } });
  git("init", "-q", "-b", "main");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start");
  const server = `muster-test-${randomBytes(6).toString("hex")}`;
  // `-S` names the server by a socket file of this home's own (the file name marks it private).
  const serverFlag = options.socket ? ["-S", path.join(home, server)] : ["-L", server];
  const env = tmuxEnv({
    HOME: home,
    TMPDIR: path.join(home, "tmp"),
    PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH}`,
    MUSTER_TEAM_DIR: team,
    MUSTER_HEARTBEAT_MS: "300",
    ...extra,
  });
  const tmux = (...args: string[]) => {
    const full = [...serverFlag, ...args];
    assertPrivateSocket(full);
    return execFileSync("tmux", full, { env, encoding: "utf8", stdio: "pipe" });
  };
  const serverRuns = () => {
    try {
      tmux("list-sessions");
      return true;
    } catch {
      return false;
    }
  };
  // The server's flag before a `--` (what follows it is the engine's own arguments).
  const withServer = (args: string[]) => {
    const end = args.indexOf("--");
    return end < 0
      ? [...args, ...serverFlag]
      : [...args.slice(0, end), ...serverFlag, ...args.slice(end)];
  };
  const muster = (args: string[]) =>
    new Promise<Run>((resolve) => {
      const child = spawn(process.execPath, [MUSTER, ...withServer(args)], {
        cwd: repo,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
      });
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      child.once("close", (status) => resolve({ status, stdout, stderr }));
    });
  return {
    home,
    repo,
    team,
    bin,
    server,
    serverFlag,
    env,
    muster,
    spawnMuster: (args) =>
      spawn(process.execPath, [MUSTER, ...withServer(args)], { cwd: repo, env, stdio: "ignore" }),
    tmux,
    serverRuns,
    declare: (text) => writeFileSync(path.join(repo, "muster.toml"), text),
    close() {
      if (serverRuns()) tmux("kill-server");
      rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
