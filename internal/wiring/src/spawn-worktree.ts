// `muster spawn --worktree`: create the git worktree the new agent starts in. The plan (where, on
// which branch, and what is refused) is core's; this file runs git. The team stays one, because
// every worktree of a repository shares its git common folder, which is the team's key.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import {
  madeWorktree,
  parseWorktreeList,
  planWorktree,
  type WorktreeFacts,
} from "@muster/core/internal";
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

/** The worktree `createWorktree` would make for `label`, made already (core's `madeWorktree`). */
export async function madeBefore(
  cwd: string,
  label: string,
  branch?: string,
): Promise<{ path: string; branch: string } | undefined> {
  const listed = await git(cwd, ["worktree", "list", "--porcelain"]);
  if (listed.status !== 0) return undefined;
  return madeWorktree(parseWorktreeList(listed.stdout), label, branch);
}

/** Create the worktree for `label` (on `branch`, else muster/<label>); its path and branch. */
export async function createWorktree(
  cwd: string,
  label: string,
  branch?: string,
): Promise<{ path: string; branch: string }> {
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
  return { path: plan.path, branch: plan.branch };
}

/** What git says about a stopped member's worktree: the repository's worktrees, its changes. */
export async function worktreeFacts(worktree: string): Promise<WorktreeFacts> {
  const [listed, status] = await Promise.all([
    git(worktree, ["worktree", "list", "--porcelain"]),
    git(worktree, ["status", "--porcelain", "-z"]),
  ]);
  return {
    entries: listed.status === 0 ? parseWorktreeList(listed.stdout) : undefined,
    changes:
      status.status === 0
        ? status.stdout.split("\0").filter((line) => line !== "").length
        : undefined,
  };
}

/**
 * Remove a worktree (never forced: git itself refuses one with changes), from the main checkout;
 * undefined when done, else git's first line.
 */
export async function removeWorktree(main: string, worktree: string): Promise<string | undefined> {
  const removed = await git(main, ["worktree", "remove", "--", worktree]);
  return removed.status === 0 ? undefined : removed.stderr.trim().split("\n")[0] || "git failed";
}
