// A real nats-server run from the configuration `muster nats config` prints, for the CLI's tests
// of a team on NATS: clones of one repository (as on several machines), each member's seed, and
// the environment a member's commands run with. The team's operator ("operator") makes its bucket.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { lineQueue, type NatsServer, startNatsServer } from "@muster/test-support";
import { MUSTER, NOWHERE, type Run } from "./run.ts";

type Muster = (
  args: string[],
  options?: { cwd?: string; env?: Record<string, string | undefined> },
) => Promise<Run>;

/** A fresh clone at `scratch/name` whose origin is `origin`. */
export function clone(scratch: string, name: string, origin = "git@github.com:acme/app.git") {
  const dir = path.join(scratch, name);
  mkdirSync(dir);
  execFileSync("git", ["init", "-q", dir]);
  execFileSync("git", ["-C", dir, "remote", "add", "origin", origin]);
  return dir;
}

export type NatsTeam = {
  server: NatsServer;
  /** What a member's commands run with: the server and its own seed. */
  env(member: string): Record<string, string>;
};

/** Start a server for the team of the clone `repo`, with these members. */
export async function startNatsTeam(
  muster: Muster,
  scratch: string,
  repo: string,
  members: readonly string[],
): Promise<NatsTeam> {
  const creds = new Map<string, string>();
  const server = await startNatsServer({
    whole: async (port, storeDir) => {
      const made = await muster(
        [
          ...["nats", "config", ...members.flatMap((member) => ["--member", member])],
          ...["--out", path.join(scratch, "seeds"), "--listen", `127.0.0.1:${port}`],
          ...["--store-dir", storeDir, "--json"],
        ],
        { cwd: repo },
      );
      const answer = JSON.parse(made.stdout);
      for (const member of answer.members) creds.set(member.member, member.credsFile);
      creds.set("operator", answer.operator.credsFile);
      return answer.config;
    },
  });
  // The operator makes the team's bucket, as the README says: members may not.
  const made = await muster(["nats", "init", "--json"], {
    cwd: repo,
    env: { MUSTER_NATS: server.url, MUSTER_NATS_CREDS: creds.get("operator") ?? "" },
  });
  if (made.status !== 0) throw new Error(`muster nats init: ${made.stdout}${made.stderr}`);
  return {
    server,
    env: (member) => ({ MUSTER_NATS: server.url, MUSTER_NATS_CREDS: creds.get(member) ?? "" }),
  };
}

export type ShellOptions = {
  cwd: string;
  home: string;
  env?: Record<string, string> | undefined;
  /** What the shell runs in (e.g. `unshare --pid --uts --fork --mount-proc`: another host). */
  wrap?: readonly string[] | undefined;
};

/**
 * A member that is a shell: each command runs from it (so the shell is its caller), its output
 * kept; the member is gone once the shell is killed. `sh(line)` runs a line of shell as it is.
 */
export function memberShell(options: ShellOptions) {
  const [file, ...args] = [...(options.wrap ?? []), "sh"];
  const shell = spawn(file!, args, {
    cwd: options.cwd,
    env: { ...process.env, HOME: options.home, TMUX: "", ...options.env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = lineQueue(shell.stdout!);
  let runs = 0;
  const sh = async (line: string) => {
    runs += 1;
    const out = path.join(options.home, `shell-${shell.pid}-${runs}`);
    shell.stdin!.write(`{ ${line}\n} >'${out}' 2>&1; echo "done $?"\n`);
    const status = Number((await lines.next()).split(" ")[1]);
    return { status, output: readFileSync(out, "utf8") };
  };
  return {
    sh,
    /** Run muster from this shell; it must succeed. Its output. */
    async run(args: string[]) {
      const words = [process.execPath, MUSTER, ...args, ...NOWHERE].map((word) => `'${word}'`);
      const ran = await sh(words.join(" "));
      if (ran.status !== 0) throw new Error(`muster ${args.join(" ")}: ${ran.output}`);
      return ran.output;
    },
    /** Kill the shell (and with a host's, the host); at once when it has already ended. */
    kill: () => {
      if (shell.exitCode !== null || shell.signalCode !== null) return Promise.resolve();
      const exited = new Promise((resolve) => shell.once("exit", resolve));
      shell.kill("SIGKILL");
      return exited;
    },
  };
}

/** What makes a shell another host: its own pid and UTS namespaces (killed with it, whole). */
export const HOST_WRAP = ["unshare", "--pid", "--uts", "--fork", "--mount-proc", "--kill-child"];

/** Why these tests cannot make a host here (the kernel forbids the namespaces), or undefined. */
export function hostsForbidden(): string | undefined {
  const probe = spawnSync(HOST_WRAP[0]!, [...HOST_WRAP.slice(1), "true"], { encoding: "utf8" });
  return probe.status === 0 ? undefined : (probe.stderr || String(probe.error)).trim();
}

/**
 * A shell on a host of its own: its namespaces, its hostname `name`, its HOME, its clone `repo`,
 * the settings of `member`, a short heartbeat interval (its beater's). Killing it kills the host:
 * the namespace's every process, its beater too.
 */
export async function hostShell(options: {
  scratch: string;
  team: NatsTeam;
  name: string;
  repo: string;
  member: string;
}) {
  const home = path.join(options.scratch, `${options.name}-home`);
  mkdirSync(home);
  const shell = memberShell({
    cwd: options.repo,
    home,
    env: { ...options.team.env(options.member), MUSTER_HEARTBEAT_MS: "300" },
    // The namespace's pid 1 is init (never a member): the member is a shell under it.
    wrap: [...HOST_WRAP, "sh", "-c", "sh; exit"],
  });
  const named = (await shell.sh(`hostname ${options.name} && hostname`)).output.trim();
  if (named !== options.name) {
    await shell.kill();
    throw new Error(`the host's name is ${named}, not ${options.name}`);
  }
  return shell;
}

/**
 * The `muster beat` processes working in `dir` or a folder under it, by pid: a hook or a command
 * that joins on NATS starts this host's beater detached, and a test ends what it started.
 */
export function beatersIn(dir: string): number[] {
  const inside = (cwd: string) => cwd === dir || cwd.startsWith(`${dir}${path.sep}`);
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        return (
          argv.includes(MUSTER) && argv.includes("beat") && inside(readlinkSync(`/proc/${pid}/cwd`))
        );
      } catch {
        return false;
      }
    });
}
