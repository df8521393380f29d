// `muster land` SIGKILLed at every step (the rebase, the check, the ref update, the fast-forward
// of the base checkout), the built binary over real git: the base is where it was or at the checked
// result, never between; the member's branch and worktree are untouched; the next land cleans the
// scratch worktree, finishes a half-done fast-forward, and is not kept waiting by the dead land's
// claim. The pause before a step is MUSTER_LAND_PAUSE, so the kill lands inside it.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GIT_IDENTITY, type LandRepo, makeLandRepo, restoreGitIdentity } from "@muster/test-team";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");

let scratch: string;
let repo: LandRepo;
beforeEach(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), "muster-land-kill-"));
  repo = await makeLandRepo(scratch);
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

type Run = { status: number | null; stdout: string; stderr: string };

function land(args: string[], env: Record<string, string> = {}, until?: string) {
  const child = spawn(process.execPath, [MUSTER, "land", "alice", "--id", "peer-alice", ...args], {
    cwd: repo.main,
    env: { ...process.env, ...GIT_IDENTITY, HOME: scratch, MUSTER_TEAM_DIR: repo.teamDir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  const reached = new Promise<void>((resolve) => {
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      if (until && stderr.includes(until)) resolve();
    });
  });
  const done = new Promise<Run>((resolve) =>
    child.once("close", (status) => resolve({ status, stdout, stderr })),
  );
  // The whole group: the check's shell dies with it, as a terminal's kill takes both.
  const kill = () => process.kill(-child.pid!, "SIGKILL");
  return { reached, done, kill };
}

const head = (ref = "main") => repo.git(repo.main, "rev-parse", ref);
const scratchWorktrees = () =>
  repo
    .git(repo.main, "worktree", "list")
    .split("\n")
    .filter((line) => line.includes(".git/muster-land"));

describe("land killed at every step", () => {
  it.each([
    ["rebase", "paused at rebase", "before"],
    ["check", "check-started", "before"],
    ["ref", "paused at ref", "before"],
    ["ff", "paused at ff", "after"],
  ] as const)(
    "killed in the %s: the base is whole, the member untouched, the next land cleans up",
    async (step, until, base) => {
      const alice = await repo.addMember("alice");
      repo.commit(repo.main, { "main.txt": "moved on\n" }, "main moves");
      repo.commit(alice.worktree, { "src/a.ts": "a\n" }, "alice's a");
      const before = head();
      const aliceTip = head("muster/alice");
      const aliceStatus = repo.git(alice.worktree, "status", "--porcelain");
      const running = land(
        ["--check", step === "check" ? "echo check-started; sleep 60" : "true"],
        step === "check" ? {} : { MUSTER_LAND_PAUSE: step },
        until,
      );
      await running.reached;
      running.kill();
      await running.done;

      expect(head("muster/alice")).toBe(aliceTip);
      expect(repo.git(alice.worktree, "status", "--porcelain")).toBe(aliceStatus);
      if (base === "before") expect(head()).toBe(before);
      else {
        // At the checked result: alice's change on top of main's.
        expect(repo.git(repo.main, "log", "--format=%s", "-2", "main").split("\n")).toEqual([
          "alice's a",
          "main moves",
        ]);
        expect(repo.git(repo.main, "rev-parse", "main^")).toBe(before);
      }
      if (step !== "ff") expect(scratchWorktrees()).toHaveLength(1);
      // Killed between the ref and its checkout: the checkout is behind until the next land.
      else expect(repo.git(repo.main, "status", "--porcelain")).not.toBe("");

      const again = land(["--no-check", "--no-wait", "--json"]);
      const run = await again.done;
      expect(scratchWorktrees()).toHaveLength(0);
      if (base === "before") {
        expect(run.status).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, outcome: { result: "landed" } });
      } else expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, reason: "nothing-ahead" });
      // Either way the base checkout now matches the base: nothing half-applied is left.
      expect(repo.git(repo.main, "status", "--porcelain")).toBe("");
      expect(readFileSync(path.join(repo.main, "src/a.ts"), "utf8")).toBe("a\n");
      const folder = path.join(repo.main, ".git", "muster-land");
      expect(
        existsSync(folder) ? readdirSync(folder).filter((name) => name.startsWith("ff-")) : [],
      ).toEqual([]);
    },
    30_000,
  );
});

// The worker runs other test files after this one: the identity makeLandRepo set goes.
afterAll(restoreGitIdentity);
