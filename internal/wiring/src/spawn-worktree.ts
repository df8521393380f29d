// `muster spawn --worktree`: create the git worktree the new agent starts in. The plan (where, on
// which branch, and what is refused) is core's; this file runs git. The team stays one, because
// every worktree of a repository shares its git common folder, which is the team's key.
import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { worktreeMark } from "@muster/core";
import {
  madeWorktree,
  parseWorktreeList,
  planWorktree,
  type WorktreeFacts,
} from "@muster/core/internal";
import { readRegularFile } from "@muster/node";
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
  // Muster's mark, in git's own folder for it (not the checkout, where the agent works): what
  // `stop` proves it made this worktree by before it removes it. Unwritten, stop keeps it, said so.
  const gitFolder = await git(plan.path, ["rev-parse", "--absolute-git-dir"]);
  try {
    if (gitFolder.status === 0)
      writeFileSync(
        path.join(gitFolder.stdout.trim(), MARK_FILE),
        worktreeMark({ label, path: plan.path, branch: plan.branch }),
        { mode: 0o600, flag: "wx" },
      );
  } catch {
    // Kept by stop, with its line: nothing of the spawn depends on it.
  }
  return { path: plan.path, branch: plan.branch };
}

/** The file in a worktree's git folder that holds muster's mark (core's `worktreeMark`). */
const MARK_FILE = "muster-worktree";

/** The mark in the worktree's git folder, undefined when there is none or it cannot be read. */
async function readMark(worktree: string): Promise<string | undefined> {
  const gitFolder = await git(worktree, ["rev-parse", "--absolute-git-dir"]);
  if (gitFolder.status !== 0) return undefined;
  try {
    return readRegularFile(path.join(gitFolder.stdout.trim(), MARK_FILE));
  } catch {
    return undefined;
  }
}

/** What git says about a stopped member's worktree: the repository's worktrees, its changes. */
export async function worktreeFacts(worktree: string): Promise<WorktreeFacts> {
  const [listed, status, mark] = await Promise.all([
    git(worktree, ["worktree", "list", "--porcelain"]),
    git(worktree, ["status", "--porcelain", "-z"]),
    readMark(worktree),
  ]);
  return {
    entries: listed.status === 0 ? parseWorktreeList(listed.stdout) : undefined,
    changes:
      status.status === 0
        ? status.stdout.split("\0").filter((line) => line !== "").length
        : undefined,
    mark,
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
