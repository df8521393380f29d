// A repository for land's tests and benchmarks: a main checkout on `main` with its team folder,
// and members added as `muster spawn --worktree` leaves them (a worktree on `muster/<label>`, its
// spawn record, the label joined as a peer of this process). Real git throughout.
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { processStart } from "@muster/node";
import type { Roster } from "@muster/roster";
import { openTeam, writeSpawnRecord } from "@muster/wiring";

/** The identity every commit of these tests is made with (no user config is needed). */
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "muster test",
  GIT_AUTHOR_EMAIL: "test@muster.invalid",
  GIT_COMMITTER_NAME: "muster test",
  GIT_COMMITTER_EMAIL: "test@muster.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
};

/** Take GIT_IDENTITY out of process.env again, after the tests that made land repositories. */
export function restoreGitIdentity(): void {
  for (const name of Object.keys(GIT_IDENTITY)) delete process.env[name];
}

export type LandRepo = {
  main: string;
  teamDir: string;
  roster: Roster;
  git(dir: string, ...args: string[]): string;
  /** Write `files` in `dir` and commit them; the new commit. */
  commit(dir: string, files: Record<string, string>, message?: string): string;
  /** A member as spawn --worktree leaves it: its worktree path and its session id. */
  addMember(label: string): Promise<{ worktree: string; id: string }>;
};

/** A fresh repository under `scratch` (one commit on main), its team folder opened. */
export async function makeLandRepo(scratch: string): Promise<LandRepo> {
  // Land's own git calls run in this process and commit (the rebase): they need an identity. The
  // caller puts process.env back (`restoreGitIdentity`): workers are shared by test files.
  Object.assign(process.env, GIT_IDENTITY);
  const root = realpathSync(scratch);
  const main = path.join(root, "app");
  const teamDir = path.join(root, "team");
  mkdirSync(main, { recursive: true });
  const git = (dir: string, ...args: string[]) =>
    execFileSync("git", ["-C", dir, ...args], {
      encoding: "utf8",
      env: { ...process.env, ...GIT_IDENTITY },
    }).trim();
  const commit = (dir: string, files: Record<string, string>, message = "change") => {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }
    git(dir, "add", "-A", "--", ...Object.keys(files));
    git(dir, "commit", "-q", "-m", message);
    return git(dir, "rev-parse", "HEAD");
  };
  git(main, "init", "-q", "-b", "main");
  commit(main, { "README.md": "app\n", "src/shared.ts": "export const shared = 1;\n" }, "first");
  const opened = await openTeam({ dir: teamDir });
  if (!opened.ok) throw new Error(opened.error);
  const roster = opened.roster;
  const addMember = async (label: string) => {
    const worktree = path.join(root, `app-${label}`);
    git(main, "worktree", "add", "-q", "-b", `muster/${label}`, "--", worktree, "main");
    await writeSpawnRecord(
      { dir: teamDir },
      {
        v: 1,
        label,
        engine: "pi",
        server: "/tmp/muster-land-test",
        serverPid: process.pid,
        pane: "%1",
        pid: process.pid,
        start: processStart(process.pid) ?? "0",
        cwd: worktree,
        by: { pane: "%0" },
        at: new Date().toISOString(),
        worktree: { path: worktree, branch: `muster/${label}` },
      },
    );
    const id = `peer-${label}`;
    const joined = await roster.join({
      agent: "pi",
      watching: { armed: true, wake: false },
      liveness: "process",
      pid: process.pid,
      pidStart: processStart(process.pid),
      id,
      label,
    });
    if (!joined.ok) throw new Error(joined.error);
    return { worktree, id };
  };
  return { main, teamDir, roster, git, commit, addMember };
}
