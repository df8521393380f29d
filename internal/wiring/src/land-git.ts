// The git a land runs, in one place: every call is `git -C <dir> …` with the repository's hooks
// off (a clone's hooks are as untrusted as its muster.toml) and no optional locks, and every name
// a caller hands in is a full `refs/heads/…` name or an object id, never a bare word git could read
// as an option. What a land asks of git (where a branch is, what it changes) is answered here.
import { execFile } from "node:child_process";
import { lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { splitNul, statusPaths } from "@muster/core";
import { parseWorktreeList } from "@muster/core/internal";

export type GitResult = { status: number; stdout: string; stderr: string };

const MAX_BUFFER = 256 * 1024 * 1024;

/** Run git in `dir`; never throws for git's own failure (its status says it). */
export function git(dir: string, args: readonly string[], input?: string): Promise<GitResult> {
  return new Promise((resolve) => {
    const child = execFile(
      "git",
      ["-C", dir, "-c", "core.hooksPath=/dev/null", "-c", "core.quotePath=false", ...args],
      {
        env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" },
        encoding: "utf8",
        maxBuffer: MAX_BUFFER,
      },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ status, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** git's first line of complaint. */
export const firstLine = (result: GitResult) =>
  result.stderr.trim().split("\n")[0] || result.stdout.trim().split("\n")[0] || "git failed";

/** The object id `ref` names now, or undefined. */
export async function objectOf(dir: string, ref: string): Promise<string | undefined> {
  const found = await git(dir, [
    "rev-parse",
    "--verify",
    "--quiet",
    "--end-of-options",
    `${ref}^{commit}`,
  ]);
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/** The repository's worktrees, the main checkout first (paths as git keeps them). */
export async function worktrees(dir: string) {
  const listed = await git(dir, ["worktree", "list", "--porcelain"]);
  return listed.status === 0 ? parseWorktreeList(listed.stdout) : [];
}

/** The branch the main checkout is on: the default base. */
export async function mainBranch(dir: string): Promise<string | undefined> {
  return (await worktrees(dir))[0]?.branch;
}

/** Where `branch` is checked out, if anywhere. */
export async function checkoutOf(dir: string, branch: string): Promise<string | undefined> {
  return (await worktrees(dir)).find((entry) => entry.branch === branch)?.path;
}

/** Whether two paths are the same folder (a symlinked worktree path is its target). */
export function sameFolder(left: string, right: string): boolean {
  try {
    return realpathSync(left) === realpathSync(right);
  } catch {
    return false;
  }
}

/** The commits in `tip` not in `base` (oldest first), one line each: id and subject. */
export async function commitsAhead(dir: string, base: string, tip: string) {
  const listed = await git(dir, [
    "log",
    "--reverse",
    "-z",
    "--format=%H %s",
    `${base}..${tip}`,
    "--",
  ]);
  if (listed.status !== 0) return undefined;
  return splitNul(listed.stdout).map((line) => ({
    commit: line.slice(0, line.indexOf(" ")),
    subject: line.slice(line.indexOf(" ") + 1),
  }));
}

/** The paths the commits of `tip` since it left `base` change, as git names them (any bytes). */
export async function changedPaths(dir: string, base: string, tip: string) {
  const changed = await git(dir, [
    "diff",
    "--no-renames",
    "--name-only",
    "-z",
    `${base}...${tip}`,
    "--",
  ]);
  return changed.status === 0 ? splitNul(changed.stdout) : undefined;
}

/** The uncommitted paths of a checkout (staged, unstaged, untracked). */
export async function uncommittedPaths(dir: string) {
  const status = await git(dir, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
  return status.status === 0 ? statusPaths(status.stdout) : undefined;
}

const present = (file: string) => {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
};

/**
 * The `paths` a land writes where `checkout` keeps a file git ignores (the path itself, or a file
 * where the path needs a folder): read-tree's fast-forward overwrites those without a word.
 * check-ignore reads each line as a path, never a pattern. Undefined when git cannot say.
 */
export async function ignoredPaths(
  checkout: string,
  paths: readonly string[],
): Promise<string[] | undefined> {
  const asked = new Map<string, string[]>();
  for (const name of paths) {
    const parts = name.split("/");
    for (let index = 1; index <= parts.length; index += 1) {
      const prefix = parts.slice(0, index).join("/");
      const facts = present(path.join(checkout, prefix));
      if (!facts) break;
      if (prefix !== name && facts.isDirectory()) continue;
      // A file (or a link) where the land needs a path: asked, and nothing beyond it.
      asked.set(prefix, [...(asked.get(prefix) ?? []), name]);
      break;
    }
  }
  if (asked.size === 0) return [];
  const checked = await git(
    checkout,
    ["check-ignore", "-z", "--stdin"],
    `${[...asked.keys()].join("\0")}\0`,
  );
  if (checked.status !== 0 && checked.status !== 1) return undefined;
  return [...new Set(splitNul(checked.stdout).flatMap((prefix) => asked.get(prefix) ?? []))];
}
