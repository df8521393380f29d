// .ci/phase, CI's bound on each phase: past its limit it names the phase, lists what still runs
// (the tree, and what detached from it), ends all of it by pid and exits 124; in time, the status
// is the command's, and what the command left running is listed and ended too. Both wait out real
// children: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { LONG_TESTS } from "@muster/test-support";
import { describe, expect, test } from "vitest";
import { REPO_ROOT } from "./test-run-files.ts";

const PHASE = path.join(REPO_ROOT, ".ci", "phase");

function phase(args: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string; ms: number }>(
    (resolve) => {
      const started = Date.now();
      const child = spawn(PHASE, args, { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
      });
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      // "close": every holder of the output is gone, the phase's leftovers included.
      child.once("close", (status) =>
        resolve({ status, stdout, stderr, ms: Date.now() - started }),
      );
    },
  );
}

/** Those of `pids` still running (an ended one may stay a zombie a moment: that is ended). */
function running(pids: number[]): number[] {
  return pids.filter((pid) => {
    try {
      return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return false;
    }
  });
}

/** The pids of the listing's rows that run `command` (`sleep 41.25`: unique to this file). */
const pidsIn = (text: string, command: string) =>
  text
    .split("\n")
    .filter((line) => new RegExp(`:\\d\\d\\s+(\\\\_ )?${command}$`).test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));

describe.runIf(process.platform === "linux")(".ci/phase", () => {
  test.skipIf(!LONG_TESTS)(
    "past its limit: names the phase, lists the tree and the detached, ends them, 124",
    async () => {
      // A child in the tree, one detached into its own session, and the command waiting on a third.
      const ran = await phase([
        "demo",
        "1",
        "bash",
        "-c",
        "sleep 41.25 & setsid sleep 41.5 & sleep 41.75",
      ]);
      expect(ran.status).toBe(124);
      expect(ran.stderr).toContain("ci: phase 'demo' ran past its limit of 1, and is ended");
      expect(ran.stderr).toContain("ci: phase 'demo': still running at its limit:");
      const listed = ["sleep 41.25", "sleep 41.5", "sleep 41.75"].flatMap((command) =>
        pidsIn(ran.stderr, command),
      );
      expect(listed).toHaveLength(3);
      expect(running(listed)).toEqual([]);
      // Bounded: the limit, the TERM, and the one-second polls, not the sleeps' 41 s.
      expect(ran.ms).toBeLessThan(15_000);
    },
    30_000,
  );

  test.skipIf(!LONG_TESTS)(
    "in time: the command's status and output; what it left running is listed and ended",
    async () => {
      const passed = await phase(["ok", "10", "sh", "-c", "echo fine"]);
      expect(passed).toMatchObject({ status: 0, stdout: "fine\n", stderr: "" });
      const failed = await phase(["failing", "10", "sh", "-c", "exit 3"]);
      expect(failed.status).toBe(3);
      // A detached child that keeps the phase's output: without the phase ending it, `close`
      // would wait for its 42 s.
      const left = await phase(["leaky", "10", "sh", "-c", "setsid sleep 42.25 & echo started"]);
      expect(left.status).toBe(0);
      expect(left.stderr).toContain("ci: phase 'leaky' ended (status 0), leaving these running");
      const pids = pidsIn(left.stderr, "sleep 42.25");
      expect(pids).toHaveLength(1);
      expect(running(pids)).toEqual([]);
      expect(left.ms).toBeLessThan(15_000);
    },
    30_000,
  );

  test("without a command: its usage, 2", async () => {
    expect(await phase(["only-a-name"])).toMatchObject({ status: 2 });
  });
});
