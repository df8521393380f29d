// Where `muster spawn --worktree` starts an agent: a git worktree beside the repository's main
// checkout, on its own branch (default `muster/<label>`). A branch already checked out in another
// worktree is refused with the fix: two worktrees on one branch would overwrite each other's work.
// Pure: git's `worktree list --porcelain` output in, a plan out; the composer runs git.

export type WorktreeEntry = {
  path: string;
  /** The branch checked out, without `refs/heads/`; undefined when detached or bare. */
  branch: string | undefined;
};

/** `git worktree list --porcelain`: one entry per worktree, the main checkout first. */
export function parseWorktreeList(porcelain: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  for (const block of porcelain.split(/\n\n+/)) {
    let path: string | undefined;
    let branch: string | undefined;
    for (const line of block.split("\n")) {
      if (line.startsWith("worktree ")) path = line.slice("worktree ".length);
      else if (line.startsWith("branch refs/heads/"))
        branch = line.slice("branch refs/heads/".length);
    }
    if (path !== undefined) entries.push({ path, branch });
  }
  return entries;
}

export type WorktreePlan =
  | { ok: true; path: string; branch: string }
  | {
      ok: false;
      reason: "no-repository" | "bad-branch" | "branch-checked-out" | "path-taken";
      error: string;
    };

/** A branch name git accepts for a new branch, conservatively: no spaces, no `..`, no leading `-`. */
const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9._/-]{1,200}(?<![./])$/;

/** The worktree to create for `label`: beside the main checkout, on `branch` (or muster/<label>). */
export function planWorktree(
  entries: readonly WorktreeEntry[],
  label: string,
  branch?: string,
): WorktreePlan {
  const main = entries[0];
  if (!main)
    return {
      ok: false,
      reason: "no-repository",
      error: "--worktree needs a git repository: run it inside one",
    };
  const wanted = branch ?? `muster/${label}`;
  if (!BRANCH.test(wanted) || wanted.endsWith(".lock"))
    return {
      ok: false,
      reason: "bad-branch",
      error: `"${wanted}" is not a branch name muster will create: use letters, digits, '.', '_', '-' and '/'`,
    };
  const holder = entries.find((entry) => entry.branch === wanted);
  if (holder)
    return {
      ok: false,
      reason: "branch-checked-out",
      error: `branch ${wanted} is checked out in ${holder.path}: pass --branch with another name, or spawn there with --cwd ${holder.path}`,
    };
  const parent = main.path.slice(0, main.path.lastIndexOf("/")) || "/";
  const base = main.path.slice(main.path.lastIndexOf("/") + 1);
  const path = `${parent === "/" ? "" : parent}/${base}-${label}`;
  if (entries.some((entry) => entry.path === path))
    return {
      ok: false,
      reason: "path-taken",
      error: `a worktree already sits at ${path}: stop its agent and remove it (git worktree remove), or pick another --label`,
    };
  return { ok: true, path, branch: wanted };
}
