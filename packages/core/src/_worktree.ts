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

/** Where a member's worktree goes: `<repo>-<label>` beside the main checkout. */
function besideMain(main: WorktreeEntry, label: string): string {
  const parent = main.path.slice(0, main.path.lastIndexOf("/")) || "/";
  const base = main.path.slice(main.path.lastIndexOf("/") + 1);
  return `${parent === "/" ? "" : parent}/${base}-${label}`;
}

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
  const path = besideMain(main, label);
  if (entries.some((entry) => entry.path === path))
    return refuse("path-taken", `a worktree already sits at ${path}`);
  return { ok: true, path, branch: wanted };
}

/**
 * The worktree `planWorktree` would create for `label`, found made already: beside the main
 * checkout, on `branch` (or muster/<label>). An `up` killed after git made it, before it was
 * recorded, left it: it is the member's (never made again, never reset). Undefined when none is.
 */
export function madeWorktree(
  entries: readonly WorktreeEntry[],
  label: string,
  branch?: string,
): { path: string; branch: string } | undefined {
  const main = entries[0];
  if (!main) return undefined;
  const wanted = branch ?? `muster/${label}`;
  const path = besideMain(main, label);
  const found = entries.slice(1).find((entry) => entry.path === path && entry.branch === wanted);
  return found && { path, branch: wanted };
}

/** What git says about a spawned member's worktree once its agent has stopped. */
export type WorktreeFacts = {
  /** `git worktree list --porcelain` of the repository (the main checkout first), if it answered. */
  entries: readonly WorktreeEntry[] | undefined;
  /** Lines of `git status --porcelain` there (changed and untracked files), if git answered. */
  changes: number | undefined;
  /** The bytes of the mark in its git folder (`worktreeMark`), undefined when there is none. */
  mark: string | undefined;
};

/**
 * What `muster spawn --worktree` writes in the git folder of a worktree it made (git's own
 * `.git/worktrees/<name>/`, which `git worktree remove` removes with it): the proof, beside the
 * spawn record another process could write, that muster made it for this label, path and branch.
 */
export const worktreeMark = (member: { label: string; path: string; branch: string }): string =>
  `muster spawn --worktree made this worktree for ${member.label}: ${member.path} on ${member.branch}\n`;

export type WorktreeAfterStop =
  /** Remove it (`git worktree remove`, never forced): nothing uncommitted is there. */
  | { action: "remove"; path: string; branch: string }
  /** Leave it; `line` says what is left and how to remove it. */
  | { action: "keep"; path: string; branch: string; line: string }
  /** Nothing of it is left (or it is not a worktree muster may touch): nothing to say or do. */
  | { action: "none"; path: string; branch: string; line?: string | undefined };

/**
 * What `muster stop` does with the worktree `muster spawn --worktree` made for a member: a clean
 * one is removed (its branch stays, with its commits); one with uncommitted changes is kept, said
 * so with the way to finish it; `keep` keeps even a clean one. Only a worktree git still lists for
 * this repository, on the recorded branch and not the main checkout, and carrying muster's mark
 * for this member byte for byte (`worktreeMark`), is ever removed: the record sits in the team
 * folder, where another process can write one naming any worktree.
 */
export function worktreeAfterStop(
  worktree: { label: string; path: string; branch: string },
  facts: WorktreeFacts,
  keep = false,
): WorktreeAfterStop {
  const { label, path, branch } = worktree;
  const branchLine = `its branch ${branch} stays (git branch -d ${branch} deletes it once merged)`;
  const listed = facts.entries?.slice(1).find((entry) => entry.path === path);
  if (facts.entries === undefined || facts.changes === undefined)
    return {
      action: "keep",
      path,
      branch,
      line: `its worktree ${path} is kept: git could not say whether it has changes; check with git -C ${path} status, then git worktree remove ${path}`,
    };
  if (!listed)
    return {
      action: "none",
      path,
      branch,
      line: `its worktree ${path} is no longer one of this repository's; nothing removed`,
    };
  if (facts.mark !== worktreeMark(worktree))
    return {
      action: "keep",
      path,
      branch,
      line: `its worktree ${path} is kept: muster finds no mark there that it made it for ${label} (a spawn record alone does not prove it); git worktree remove ${path} removes it`,
    };
  if (listed.branch !== branch)
    return {
      action: "keep",
      path,
      branch,
      line: `its worktree ${path} is kept: it has ${listed.branch ?? "a detached HEAD"} out now, not ${branch}; git worktree remove ${path} removes it`,
    };
  if (facts.changes > 0)
    return {
      action: "keep",
      path,
      branch,
      line: `its worktree ${path} is kept: ${facts.changes} uncommitted change(s) there (git -C ${path} status); commit them, or lose them with git worktree remove --force ${path}; ${branchLine}`,
    };
  if (keep)
    return {
      action: "keep",
      path,
      branch,
      line: `its worktree ${path} is kept (no uncommitted changes): git worktree remove ${path} removes it; ${branchLine}`,
    };
  return { action: "remove", path, branch };
}

/** Said once a clean worktree was removed. */
export const worktreeRemovedLine = (worktree: { path: string; branch: string }): string =>
  `removed its worktree ${worktree.path} (no uncommitted changes); its branch ${worktree.branch} stays with its commits (git branch -d ${worktree.branch} deletes it once merged)`;

/** What a spawn record says of where its member ran (its folder resolved by the caller: real). */
export type RecordedPlace = {
  /** The record's folder as a real path, or undefined when it is gone. */
  cwd: string | undefined;
  worktree?: { path: string; branch: string } | undefined;
};

const inside = (folder: string, root: string) =>
  folder === root || folder.startsWith(root.endsWith("/") ? root : `${root}/`);

const shownPath = (text: string) => JSON.stringify(text.slice(0, 200));

/**
 * Where `muster up` may start a member again, from its spawn record, which any process of the
 * person's may write: its worktree only where git lists that path on that branch, its folder only
 * inside the main checkout or a worktree git lists (`entries`, real paths). Anything else is left
 * out, with a note: the member starts where muster.toml declares it, never in another repository.
 */
export function resumePlace(
  entries: readonly WorktreeEntry[],
  record: RecordedPlace,
): { worktree?: { path: string; branch: string }; cwd?: string; note?: string } {
  const declared = "started where muster.toml declares it";
  const { worktree } = record;
  if (worktree) {
    const listed = entries
      .slice(1)
      .some((entry) => entry.path === worktree.path && entry.branch === worktree.branch);
    if (!listed)
      return {
        note: `its spawn record named a worktree git does not list on that branch (${shownPath(worktree.path)} on ${shownPath(worktree.branch).slice(1, -1)}): ${declared}`,
      };
  }
  if (record.cwd === undefined) return worktree ? { worktree } : {};
  if (!entries.some((entry) => inside(record.cwd!, entry.path)))
    return {
      note: `its spawn record named a folder outside this repository (${shownPath(record.cwd)}): ${declared}`,
    };
  return { ...(worktree ? { worktree } : {}), cwd: record.cwd };
}
