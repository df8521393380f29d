// The Codex app-server daemon a spawned Codex found running rather than started: named as not
// muster's, and never ended. Stand-ins with the real daemon's shape (a program at
// <home>/.codex/packages/app-server-daemon/releases/<version>/bin/codex, `app-server` in its
// argv) and a "Codex" whose environment names that HOME, as real processes; the real Codex's stop
// runs in the CLI's codex-stop-daemon test (`pnpm test:long`). A daemon or a Codex that exited
// and is not reaped yet (a zombie: pid 1 here reaps every ~2 s, later under load) has ended.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processStart, readProcessTable } from "@muster/node";
import { afterAll, expect, it } from "vitest";
import {
  codexDaemonsNotStarted,
  codexUsersIn,
  notStartedOutcome,
  settleCodexDaemons,
} from "./codex-daemon.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-wiring-daemon-")));
const children: ChildProcess[] = [];
const grandchildren: number[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  for (const pid of grandchildren)
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // ended (a zombie is reaped once its parent is gone)
    }
  rmSync(scratch, { recursive: true, force: true });
});

/** A process that waits, started from `file` with `args` and the environment `env`. */
function waiting(file: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(file, ["-e", "setTimeout(() => {}, 600_000)", ...args], {
    env,
    stdio: "ignore",
  });
  children.push(child);
  return child;
}

/** A HOME whose Codex daemon runs (as a person's own Codex leaves it), and a Codex using it. */
function homeWithDaemon(name: string) {
  const home = path.join(scratch, name);
  const bin = path.join(
    home,
    ".codex",
    "packages",
    "app-server-daemon",
    "releases",
    "0.171.0",
    "bin",
  );
  mkdirSync(bin, { recursive: true });
  symlinkSync(process.execPath, path.join(bin, "codex"));
  const env = { PATH: process.env.PATH, HOME: home };
  const daemon = waiting(path.join(bin, "codex"), ["app-server", "--managed-daemon"], env);
  const codex = waiting(process.execPath, ["codex"], env);
  return { home, daemon: daemon.pid!, codex: codex.pid! };
}

const settled = async (pid: number) => {
  for (let tries = 0; tries < 100 && processStart(pid) === undefined; tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 20));
};

it("a daemon the spawned Codex found running is named as not muster's, and stays", async () => {
  const { home, daemon, codex } = homeWithDaemon("found");
  const other = homeWithDaemon("other");
  await Promise.all([daemon, codex, other.daemon].map(settled));
  const found = await codexDaemonsNotStarted(codex, []);
  // Only its own home's daemon, not another home's.
  expect(found).toEqual([
    { pid: daemon, start: processStart(daemon), codexHome: path.join(home, ".codex") },
  ]);
  // One muster started (or kept) is not named again.
  expect(await codexDaemonsNotStarted(codex, found)).toEqual([]);
  const outcome = notStartedOutcome(found);
  expect(outcome).toMatchObject({ pids: [daemon], ended: false, kept: [] });
  expect(outcome?.line).toBe(
    `its Codex used the app-server daemon of ${path.join(home, ".codex")} (pid ${daemon}), which muster did not start: it stays, serving the Codex sessions started there without muster`,
  );
  // Nothing ends it: what stop settles is only what muster started.
  expect(await settleCodexDaemons([])).toBeUndefined();
  expect(processStart(daemon)).toBe(found[0]!.start);
});

it("a daemon that ended meanwhile, or a Codex whose home cannot be read, is not named", async () => {
  const { daemon, codex } = homeWithDaemon("ended");
  await Promise.all([daemon, codex].map(settled));
  const found = await codexDaemonsNotStarted(codex, []);
  expect(found.map((entry) => entry.pid)).toEqual([daemon]);
  process.kill(daemon, "SIGKILL");
  for (let tries = 0; tries < 100 && processStart(daemon) !== undefined; tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 20));
  expect(notStartedOutcome(found)).toBeUndefined();
  expect(await codexDaemonsNotStarted(2 ** 22 + 7, [])).toEqual([]);
});

/**
 * A process started from `file` (as `sleep 600`) under a parent that never reaps a child: once
 * ended, it stays a zombie, as a daemon or a Codex does on a machine whose pid 1 reaps slowly
 * (every ~2 s here, later under load). Its pid.
 */
async function unreaped(file: string, env: NodeJS.ProcessEnv = {}, args = "600"): Promise<number> {
  const parent = spawn("sh", ["-c", `'${file}' ${args} >/dev/null & echo $!; exec sleep 600`], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "ignore"],
  });
  children.push(parent);
  let out = "";
  parent.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  for (let tries = 0; tries < 250 && !/^\d+\n/.test(out); tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 20));
  const pid = Number(/^(\d+)\n/.exec(out)?.[1]);
  // Never a pid 0 or -1: a signal to it would reach this whole process group.
  if (!(pid > 1)) throw new Error(`no pid from the unreaping parent: ${out}`);
  grandchildren.push(pid);
  await settled(pid);
  return pid;
}

/** A stand-in daemon of a Codex home of its own, under a parent that never reaps it: its pid and home. */
async function unreapedDaemon(name: string) {
  const codexHome = path.join(scratch, name, ".codex");
  const bin = path.join(codexHome, "packages", "app-server-daemon", "releases", "0.171.0", "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(process.execPath, path.join(bin, "codex"));
  const pid = await unreaped(
    path.join(bin, "codex"),
    {},
    "-e 'setTimeout(() => {}, 600000)' app-server --managed-daemon",
  );
  return { pid, codexHome };
}

const zombie = async (pid: number) => {
  process.kill(pid, "SIGKILL");
  for (let tries = 0; tries < 100; tries += 1) {
    if (/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"))) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${pid} did not become a zombie`);
};

it("a daemon that exited but is not reaped yet has ended: said so at once", async () => {
  const { pid: daemon, codexHome } = await unreapedDaemon("unreaped");
  const found = { pid: daemon, start: processStart(daemon)!, codexHome };
  const began = Date.now();
  const outcome = await settleCodexDaemons([found]);
  expect(outcome).toMatchObject({ pids: [daemon], ended: true, kept: [] });
  // Ended by its SIGTERM; not waited on for 4 s and then reported as alive.
  expect(Date.now() - began).toBeLessThan(2_000);
  expect(readFileSync(`/proc/${daemon}/stat`, "utf8")).toMatch(/\) Z /);
});

it("a Codex that exited but is not reaped yet is no other user of the daemon", async () => {
  // A Codex of another home, ended: a zombie has no environment to say its home, only its name.
  const bin = path.join(scratch, "zombie-bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(
    execFileSync("sh", ["-c", "command -v sleep"], { encoding: "utf8" }).trim(),
    path.join(bin, "codex"),
  );
  const codex = await unreaped(path.join(bin, "codex"), {
    HOME: path.join(scratch, "elsewhere"),
  });
  await zombie(codex);
  const { pid: daemon, codexHome } = await unreapedDaemon("served");
  const found = { pid: daemon, start: processStart(daemon)!, codexHome };
  const outcome = await settleCodexDaemons([found]);
  expect(outcome).toMatchObject({ pids: [daemon], ended: true });
  expect(outcome?.line).toMatch(`ended: no other Codex of ${codexHome} runs`);
});

// The daemons a stop settles include those an earlier stop kept (spawned/.codex-daemons.json, a
// file in the team folder: any process of the user can write it). An entry naming a process that
// is no Codex app-server (by its pid and start time, read from /proc) is never signalled.
it("a kept daemon that is no Codex app-server of its home is not ended, whatever the file says", async () => {
  const other = spawn("sleep", ["600"], { stdio: "ignore" });
  children.push(other);
  await settled(other.pid!);
  const start = processStart(other.pid!)!;
  // A real daemon's stand-in too, named as another home's (none of whose Codexes runs).
  const { daemon } = homeWithDaemon("misnamed");
  await settled(daemon);
  const daemonStart = processStart(daemon)!;
  const planted = [
    { pid: other.pid!, start, codexHome: path.join(scratch, "nobody", ".codex") },
    { pid: daemon, start: daemonStart, codexHome: path.join(scratch, "nobody", ".codex") },
  ];
  expect(await settleCodexDaemons(planted)).toBeUndefined();
  expect(other.exitCode).toBeNull();
  expect(other.signalCode).toBeNull();
  expect(processStart(other.pid!)).toBe(start);
  expect(processStart(daemon)).toBe(daemonStart);
});

// Whether another Codex still uses the daemon decides whether it is ended: a Codex whose liveness
// cannot be decided (processAlive's `unknown`: /proc unreadable for it, no start time) counts as a
// user, so the daemon stays; only one proven dead (gone, reused pid, a zombie) is no user. The
// answer `unknown` cannot be produced with a real process here (root reads every /proc entry), so
// that one fact is stubbed; the Codex, its environment and the process table are real.
it.each([
  ["unknown", 1],
  ["alive", 1],
  ["dead", 0],
] as const)("a Codex of the home whose process is %s counts as %i user(s)", async (fact, count) => {
  const home = path.join(scratch, `users-${fact}`);
  const bin = path.join(home, "bin");
  mkdirSync(bin, { recursive: true });
  const sleep = execFileSync("sh", ["-c", "command -v sleep"], { encoding: "utf8" }).trim();
  symlinkSync(sleep, path.join(bin, "codex"));
  const child = spawn(path.join(bin, "codex"), ["600"], {
    env: { PATH: process.env.PATH, HOME: home },
    stdio: "ignore",
  });
  children.push(child);
  const codex = child.pid!;
  // Until it has exec'd: a forked child is Node by its argv for a moment.
  let table = await readProcessTable();
  for (let tries = 0; tries < 100; tries += 1) {
    if (table.ok && table.processes.some((row) => row.pid === codex && row.argv[1] === "600"))
      break;
    await new Promise((resolve) => setTimeout(resolve, 20));
    table = await readProcessTable();
  }
  if (!table.ok) throw new Error("no process table");
  // Its own row only: another test's Codex (a zombie with no environment) is not this one's.
  const rows = table.processes.filter((row) => row.pid === codex);
  const users = codexUsersIn(rows, path.join(home, ".codex"), [], () => fact);
  expect(users.map((row) => row.pid)).toEqual(count === 1 ? [codex] : []);
});
