// `muster diff <label>`: what a member's branch changes against the base — the commits ahead, the
// files, the patch (or its stat) — and, said apart, what is only in its working tree. Read only:
// nothing here writes to the member's worktree or branch, and its uncommitted changes are never
// taken into anything.
import type { LandRefusal } from "@muster/core";
import {
  changedPaths,
  commitsAhead,
  firstLine,
  git,
  objectOf,
  uncommittedPaths,
} from "./land-git.ts";
import { landTarget, type TargetRefusal } from "./land-target.ts";

export type MemberDiff = {
  ok: true;
  label: string;
  branch: string;
  base: string;
  worktree: string;
  /** The base's commit and the branch's. */
  baseCommit: string;
  branchCommit: string;
  commits: { commit: string; subject: string }[];
  files: string[];
  /** The patch, or with `stat` git's `--stat`. */
  patch: string;
  /** Paths changed in the worktree and not committed: not part of what would land. */
  uncommitted: string[] | undefined;
};

/** What `label`'s branch would land, from `cwd`'s repository. */
export async function memberDiff(
  where: { cwd: string; teamDir: string },
  label: string,
  options: { stat?: boolean | undefined } = {},
): Promise<MemberDiff | TargetRefusal | LandRefusal> {
  const target = await landTarget(where, label);
  if (!target.ok) return target;
  const [baseCommit, branchCommit] = await Promise.all([
    objectOf(target.main, target.baseRef),
    objectOf(target.main, target.branchRef),
  ]);
  if (!baseCommit || !branchCommit)
    return {
      ok: false,
      reason: "bad-branch",
      error: `${!baseCommit ? target.base : target.branch} names no commit in ${target.main}`,
      fix: "check the branch with git branch --list",
    };
  const [commits, files, patch, uncommitted] = await Promise.all([
    commitsAhead(target.main, baseCommit, branchCommit),
    changedPaths(target.main, baseCommit, branchCommit),
    git(target.main, [
      "diff",
      "--no-color",
      ...(options.stat ? ["--stat"] : []),
      `${baseCommit}...${branchCommit}`,
      "--",
    ]),
    uncommittedPaths(target.worktree),
  ]);
  if (!commits || !files || patch.status !== 0)
    return {
      ok: false,
      reason: "bad-branch",
      error: `git could not compare ${target.branch} with ${target.base}: ${firstLine(patch)}`,
      fix: "check the repository with git status",
    };
  return {
    ok: true,
    label: target.label,
    branch: target.branch,
    base: target.base,
    worktree: target.worktree,
    baseCommit,
    branchCommit,
    commits,
    files,
    patch: patch.stdout,
    uncommitted,
  };
}
