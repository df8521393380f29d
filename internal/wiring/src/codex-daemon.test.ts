// The Codex app-server daemon a spawned Codex found running rather than started: named as not
// muster's, and never ended. Stand-ins with the real daemon's shape (a program at
// <home>/.codex/packages/app-server-daemon/releases/<version>/bin/codex, `app-server` in its
// argv) and a "Codex" whose environment names that HOME, as real processes; the real Codex's stop
// runs in the CLI's codex-stop-daemon test (`pnpm test:long`).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processStart } from "@muster/node";
import { afterAll, expect, it } from "vitest";
import { codexDaemonsNotStarted, notStartedOutcome, settleCodexDaemons } from "./codex-daemon.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-wiring-daemon-")));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
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
