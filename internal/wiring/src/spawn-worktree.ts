// `muster spawn --worktree`: create the git worktree the new agent starts in. The plan (where, on
// which branch, and what is refused) is core's; this file runs git. The team stays one, because
// every worktree of a repository shares its git common folder, which is the team's key.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { parseWorktreeList, planWorktree } from "@muster/core";
import { SpawnRefusal } from "./spawn-refusal.ts";

function git(
  cwd: string,
  args: string[],
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "git",
      ["-C", cwd, ...args],
      { env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" }, encoding: "utf8" },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ status, stdout, stderr });
      },
    );
  });
}

/** Create the worktree for `label` (on `branch`, else muster/<label>); its path. */
export async function createWorktree(cwd: string, label: string, branch?: string): Promise<string> {
  const listed = await git(cwd, ["worktree", "list", "--porcelain"]);
  const plan = planWorktree(
    listed.status === 0 ? parseWorktreeList(listed.stdout) : [],
    label,
    branch,
  );
  if (!plan.ok) throw new SpawnRefusal(plan.reason, plan.error, plan.fix);
  if (existsSync(plan.path))
    throw new SpawnRefusal(
      "path-taken",
      `${plan.path} already exists`,
      "move it away, or pick another label",
    );
  const exists = await git(cwd, ["rev-parse", "--verify", "--quiet", `refs/heads/${plan.branch}`]);
  const added = await git(
    cwd,
    exists.status === 0
      ? ["worktree", "add", "--", plan.path, plan.branch]
      : ["worktree", "add", "-b", plan.branch, "--", plan.path],
  );
  if (added.status !== 0)
    throw new SpawnRefusal(
      "worktree-failed",
      `git could not create the worktree at ${plan.path}: ${added.stderr.trim().split("\n")[0]}`,
    );
  return plan.path;
}
