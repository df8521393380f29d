// A replay's bounds hold: a command past its time is ended with all it started (a `pnpm release`
// is pnpm, turbo and their children), and a step past its time fails under its own name.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { bounded, steps } from "./replay-steps.ts";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it("ends a command past its time with the processes it started, and names it", async () => {
  const folder = mkdtempSync(path.join(tmpdir(), "muster-replay-steps-"));
  const file = path.join(folder, "child");
  try {
    await expect(
      bounded("sh", ["-c", `sleep 30 & echo $! > ${file}; wait`], {
        cwd: folder,
        env: process.env,
        seconds: 0.3,
      }),
    ).rejects.toThrow(`sh -c sleep 30 & echo $! > ${file}; wait did not finish in 0.3 s`);
    const child = Number(readFileSync(file, "utf8").trim());
    expect(child).toBeGreaterThan(0);
    for (let waited = 0; alive(child) && waited < 2_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive(child)).toBe(false);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

it("fails a step past its time or throwing under its name, and passes one that finishes", async () => {
  const said: string[] = [];
  const { step, failures } = steps((line) => said.push(line));
  expect(await step("quick", 5, async () => "done")).toBe(true);
  expect(await step("stuck", 0, () => new Promise<string>(() => {}))).toBe(false);
  expect(await step("broken", 5, () => Promise.reject(new Error("no registry")))).toBe(false);
  expect(failures).toEqual(["stuck: did not finish in 0 s", "broken: no registry"]);
  expect(said.map((line) => line.replace(/ \(.*/, ""))).toEqual([
    "  ok  quick",
    "  FAIL stuck",
    "  FAIL broken",
  ]);
});
