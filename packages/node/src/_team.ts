// The team folder of a repository. A team is a repository: its key is the real path of
// `git rev-parse --git-common-dir`, so every worktree of one repository is one team; outside git,
// the real path of the working directory. MUSTER_TEAM_DIR overrides the folder exactly;
// MUSTER_HOME moves the root (default `${XDG_STATE_HOME:-~/.local/state}/muster`).
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import path from "node:path";
import { runProgram } from "./_exec.js";
import { stateRoot } from "./state-root.js";

export type TeamFolder = {
  /** The folder the roster lives in. */
  dir: string;
  /** What identifies the team: the git common dir's real path, or the working directory's. */
  key: string;
  /** A readable name: the repository's folder name. */
  name: string;
  /** Every worktree of the repository (its main checkout first); the working directory outside git. */
  worktrees: string[];
  source: "git" | "cwd";
  /** Set when MUSTER_TEAM_DIR (or an explicit folder) chose `dir`. */
  overridden: boolean;
};

export type TeamFolderOptions = {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  teamDir?: string | undefined;
};

async function git(cwd: string, args: string[]) {
  const env = { ...process.env, GIT_OPTIONAL_LOCKS: "0" };
  const result = await runProgram("git", ["-C", cwd, ...args], { env });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

const safeName = (name: string) =>
  name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+/, "") || "team";

/** Find the team of the repository `cwd` is in, and its folder. Needs no configuration. */
export async function findTeamFolder(options: TeamFolderOptions = {}): Promise<TeamFolder> {
  const env = options.env ?? process.env;
  const cwd = realpathSync(options.cwd ?? process.cwd());
  // Both questions at once: start-up time is the CLI's budget.
  const [common, listing = ""] = await Promise.all([
    git(cwd, ["rev-parse", "--path-format=absolute", "--git-common-dir"]),
    git(cwd, ["worktree", "list", "--porcelain"]),
  ]);
  let key: string;
  let name: string;
  let worktrees: string[];
  if (common) {
    key = realpathSync(common);
    name =
      path.basename(key) === ".git"
        ? path.basename(path.dirname(key))
        : path.basename(key).replace(/\.git$/, "");
    worktrees = listing
      .split("\n")
      .filter((line) => line.startsWith("worktree "))
      .map((line) => line.slice("worktree ".length));
  } else {
    key = cwd;
    name = path.basename(cwd);
    worktrees = [cwd];
  }
  const explicit = options.teamDir ?? env.MUSTER_TEAM_DIR;
  const digest = createHash("sha256").update(key).digest("hex").slice(0, 12);
  return {
    dir: explicit
      ? path.resolve(explicit)
      : path.join(stateRoot(env), "teams", `${safeName(name)}-${digest}`),
    key,
    name,
    worktrees,
    source: common ? "git" : "cwd",
    overridden: Boolean(explicit),
  };
}

/** Is `folder` inside one of the team's worktrees? */
export function insideTeam(team: Pick<TeamFolder, "worktrees">, folder: string): boolean {
  return team.worktrees.some(
    (root) => folder === root || folder.startsWith(root.endsWith("/") ? root : `${root}/`),
  );
}
