// The janitor ends exactly the processes that carry its run's mark and are not kept, by pid.
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, test } from "vitest";
import { endMarked, RUN_MARK } from "./leaked-processes.ts";

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
});

/** A `sleep` with `mark` in its environment (or none); resolves once it runs. */
async function sleeper(mark: string | undefined): Promise<ChildProcess> {
  const env = { ...process.env, [RUN_MARK]: mark?.slice(RUN_MARK.length + 1) ?? "" };
  const child = spawn("sleep", ["60"], { env, stdio: "ignore" });
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

describe.runIf(process.platform === "linux")("endMarked", () => {
  test("ends a marked process and names it; leaves another run's and an unmarked one", async () => {
    const mark = `${RUN_MARK}=run-${process.pid}-a`;
    const leaked = await sleeper(mark);
    const otherRun = await sleeper(`${RUN_MARK}=run-${process.pid}-b`);
    const unmarked = await sleeper(undefined);
    const ended = endMarked(mark, []);
    expect(ended).toEqual([{ pid: leaked.pid, command: "sleep 60" }]);
    expect(await exited(leaked)).toBe("SIGKILL");
    expect(otherRun.exitCode ?? otherRun.signalCode).toBeNull();
    expect(unmarked.exitCode ?? unmarked.signalCode).toBeNull();
  });

  test("keeps a kept process's children (the runner's workers)", async () => {
    const mark = `${RUN_MARK}=run-${process.pid}-c`;
    const child = await sleeper(mark);
    // Its parent is this process: kept when this process is, and so is a kept pid itself.
    expect(endMarked(mark, [process.pid])).toEqual([]);
    expect(endMarked(mark, [child.pid!])).toEqual([]);
    expect(child.exitCode ?? child.signalCode).toBeNull();
    expect(endMarked(mark, [])).toEqual([{ pid: child.pid, command: "sleep 60" }]);
    expect(await exited(child)).toBe("SIGKILL");
  });
});
