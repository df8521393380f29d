// Which branch a land or a diff is about: the member's spawn record (`spawn --worktree` wrote its
// worktree and branch), read as hostile and checked against what git itself lists, and the base
// (`[land] base` in muster.toml, else the branch the main checkout is on). A record naming a
// branch that is an option, a worktree git does not list on that branch, or a symlink, is refused.
import { lstatSync } from "node:fs";
import { branchRef, type LandRefusal, withSuggestion } from "@muster/core";
import { worktrees } from "./land-git.ts";
import { type LandSettings, landSettings } from "./land-settings.ts";
import { checkLabel, readSpawnRecord, readSpawnRecords } from "./spawn-records.ts";

export type LandTarget = {
  label: string;
  /** The main checkout: git runs here, muster.toml is read here. */
  main: string;
  branch: string;
  branchRef: string;
  /** The member's worktree: read (its uncommitted changes), never written. */
  worktree: string;
  base: string;
  baseRef: string;
  settings: LandSettings;
};

export type TargetRefusal =
  | LandRefusal
  | { ok: false; reason: "no-repository" | "bad-config"; error: string; fix: string };

const refusal = (
  reason: "no-worktree" | "bad-branch",
  error: string,
  fix: string,
): LandRefusal => ({
  ok: false,
  reason,
  error,
  fix,
});

/** The member `label`'s branch and worktree, and the base, from `cwd`'s repository. */
export async function landTarget(
  where: { cwd: string; teamDir: string },
  label: string,
): Promise<({ ok: true } & LandTarget) | TargetRefusal> {
  const listed = await worktrees(where.cwd);
  const main = listed[0];
  if (!main)
    return {
      ok: false,
      reason: "no-repository",
      error: "land needs a git repository, and none is here",
      fix: "run it from inside the team's repository",
    };
  const member = await memberWorktree(where.teamDir, label, listed.slice(1));
  if (!member.ok) return member;
  const { worktree, branch } = member;
  const read = await landSettings(main.path);
  if (!read.ok)
    return {
      ok: false,
      reason: "bad-config",
      error: read.error,
      fix: "fix muster.toml's [land] table",
    };
  const baseName = read.settings.base ?? main.branch;
  if (baseName === undefined)
    return refusal(
      "bad-branch",
      "the main checkout is on no branch, and muster.toml names no [land] base",
      'check a branch out there, or set base = "main" under [land] in muster.toml',
    );
  const base = branchRef(baseName);
  if (!base.ok) return base;
  if (baseName === worktree.branch)
    return refusal(
      "bad-branch",
      `${label}'s branch is the base ${baseName} itself`,
      "land a member's own branch",
    );
  return {
    ok: true,
    label: label.toLowerCase(),
    main: main.path,
    branch: worktree.branch,
    branchRef: branch.ref,
    worktree: worktree.path,
    base: baseName,
    baseRef: base.ref,
    settings: read.settings,
  };
}

/**
 * The worktree `label`'s spawn record names, if it is one git lists (`linked`) on the record's
 * branch, and no symlink; else the refusal, with the member meant for a label muster spawned none for.
 */
async function memberWorktree(
  teamDir: string,
  label: string,
  linked: Awaited<ReturnType<typeof worktrees>>,
): Promise<
  | { ok: true; worktree: { path: string; branch: string }; branch: { ok: true; ref: string } }
  | LandRefusal
> {
  const record = await readSpawnRecord({ dir: teamDir }, checkLabel(label));
  const worktree = record?.worktree;
  if (!worktree) {
    const { records } = await readSpawnRecords({ dir: teamDir });
    return withSuggestion(
      refusal(
        "no-worktree",
        `muster spawned no worktree for "${label}"`,
        "name a member started with muster spawn --worktree (muster spawn --list shows them)",
      ),
      label,
      records.filter((each) => each.worktree).map((each) => each.label),
    );
  }
  const branch = branchRef(worktree.branch);
  if (!branch.ok) return branch;
  const linkStat = (() => {
    try {
      return lstatSync(worktree.path);
    } catch {
      return undefined;
    }
  })();
  if (linkStat?.isSymbolicLink())
    return refusal(
      "no-worktree",
      `${label}'s worktree ${worktree.path} is a symlink: muster will not follow it`,
      "remove the link; land a worktree muster created",
    );
  const listedThere = linked.find((entry) => entry.path === worktree.path);
  if (!listedThere || listedThere.branch !== worktree.branch)
    return refusal(
      "no-worktree",
      `${worktree.path} is not a worktree of this repository on ${worktree.branch}`,
      `check it with git worktree list; land from ${label}'s repository`,
    );
  return { ok: true, worktree, branch };
}
