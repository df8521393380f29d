// Where `muster spawn --worktree` starts an agent: a git worktree beside the repository's main
// checkout, on its own branch (default `muster/<label>`). A branch already checked out in another
// worktree is refused, with its fix: two worktrees on one branch would overwrite each other's work.
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

export type WorktreeRefusal = "no-repository" | "bad-branch" | "branch-checked-out" | "path-taken";

export type WorktreePlan =
  | { ok: true; path: string; branch: string }
  | { ok: false; reason: WorktreeRefusal; error: string; fix: string };

/** What to do about each refusal: defined here, beside the checks; composers join it to the error. */
const WORKTREE_FIXES: Record<WorktreeRefusal, string> = {
  "no-repository": "start it from inside one",
  "bad-branch": "use letters, digits, '.', '_', '-' and '/'",
  "branch-checked-out": "name another branch, or start the agent in that worktree",
  "path-taken": "stop its agent and remove it (git worktree remove), or pick another label",
};

const refuse = (reason: WorktreeRefusal, error: string): WorktreePlan => ({
  ok: false,
  reason,
  error,
  fix: WORKTREE_FIXES[reason],
});

/** A branch name git accepts for a new branch, conservatively: no spaces, no `..`, no leading `-`. */
const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9._/-]{1,200}(?<![./])$/;

/** The worktree to create for `label`: beside the main checkout, on `branch` (or muster/<label>). */
export function planWorktree(
  entries: readonly WorktreeEntry[],
  label: string,
  branch?: string,
): WorktreePlan {
  const main = entries[0];
  if (!main) return refuse("no-repository", "a worktree needs a git repository, and none is here");
  const wanted = branch ?? `muster/${label}`;
  if (!BRANCH.test(wanted) || wanted.endsWith(".lock"))
    return refuse("bad-branch", `"${wanted}" is not a branch name muster will create`);
  const holder = entries.find((entry) => entry.branch === wanted);
  if (holder)
    return refuse("branch-checked-out", `branch ${wanted} is checked out in ${holder.path}`);
  const parent = main.path.slice(0, main.path.lastIndexOf("/")) || "/";
  const base = main.path.slice(main.path.lastIndexOf("/") + 1);
  const path = `${parent === "/" ? "" : parent}/${base}-${label}`;
  if (entries.some((entry) => entry.path === path))
    return refuse("path-taken", `a worktree already sits at ${path}`);
  return { ok: true, path, branch: wanted };
}
