// The janitor ends exactly the processes of its run that are not kept, by pid: those carrying its
// mark, and those living in its folder (a working folder or HOME under it) though their
// environment was made anew and they detached; never another run's or an unrelated one.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { endLeaked, RUN_MARK, type Run } from "./leaked-processes.ts";

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
});
const scratch = mkdtempSync(path.join(tmpdir(), "muster-leaked-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A run of this file's own: its mark and a folder of its own. */
function fakeRun(name: string): Run {
  const dir = path.join(scratch, name);
  mkdirSync(dir);
  return { mark: `${RUN_MARK}=run-${process.pid}-${name}`, dir };
}

type Sleeper = { mark?: string; cwd?: string; env?: NodeJS.ProcessEnv; detached?: boolean };

/** A `sleep` with `mark` in its environment (or none); resolves once it runs. */
async function sleeper(options: Sleeper = {}): Promise<ChildProcess> {
  const mark = options.mark?.slice(RUN_MARK.length + 1) ?? "";
  const env = options.env ?? { ...process.env, [RUN_MARK]: mark };
  const child = spawn("sleep", ["60"], {
    env,
    cwd: options.cwd ?? scratch,
    detached: options.detached ?? false,
    stdio: "ignore",
  });
  started.push(child);
  await new Promise((resolve) => child.once("spawn", resolve));
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve(child.signalCode)
      : child.once("exit", (_code, signal) => resolve(signal)),
  );

describe.runIf(process.platform === "linux")("endLeaked", () => {
  test("ends a marked process and names it; leaves another run's and an unmarked one", async () => {
    const run = fakeRun("a");
    const leaked = await sleeper({ mark: run.mark });
    const otherRun = await sleeper({ mark: fakeRun("b").mark });
    const unmarked = await sleeper();
    const ended = endLeaked(run, []);
    expect(ended).toEqual([{ pid: leaked.pid, command: "sleep 60" }]);
    expect(await exited(leaked)).toBe("SIGKILL");
    expect(otherRun.exitCode ?? otherRun.signalCode).toBeNull();
    expect(unmarked.exitCode ?? unmarked.signalCode).toBeNull();
  });

  test("ends what detached with an environment of its own, by its folder or its HOME", async () => {
    // As Codex starts an MCP server (HOME and PATH only), which starts a detached `muster beat`.
    const run = fakeRun("c");
    const home = path.join(run.dir, "home");
    mkdirSync(home);
    const bare = { PATH: process.env.PATH };
    const byFolder = await sleeper({ cwd: home, env: bare, detached: true });
    const byHome = await sleeper({ env: { ...bare, HOME: home }, detached: true });
    const elsewhere = await sleeper({ env: { ...bare, HOME: scratch }, detached: true });
    const ended = endLeaked(run, []).map((leaked) => leaked.pid);
    expect(ended.sort()).toEqual([byFolder.pid, byHome.pid].sort());
    expect(await exited(byFolder)).toBe("SIGKILL");
    expect(await exited(byHome)).toBe("SIGKILL");
    expect(elsewhere.exitCode ?? elsewhere.signalCode).toBeNull();
  });

  test("keeps a kept process's children (the runner's workers)", async () => {
    const run = fakeRun("d");
    const child = await sleeper({ mark: run.mark });
    // Its parent is this process: kept when this process is, and so is a kept pid itself.
    expect(endLeaked(run, [process.pid])).toEqual([]);
    expect(endLeaked(run, [child.pid!])).toEqual([]);
    expect(child.exitCode ?? child.signalCode).toBeNull();
    expect(endLeaked(run, [])).toEqual([{ pid: child.pid, command: "sleep 60" }]);
    expect(await exited(child)).toBe("SIGKILL");
  });
});
