// A real pi member lands its own work: pi (RPC, faux model, throwaway HOME) commits in its own
// worktree (branch muster/coder, as spawn --worktree makes it) from its bash tool, then calls
// team_land on itself: the commit is rebased onto the base in a scratch worktree, checked there,
// and the base checkout has it. Whole real pi sessions: `pnpm test:long` (MUSTER_LONG_TESTS).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { processStart } from "@muster/node";
import { LONG_TESTS } from "@muster/test-support";
import { writeSpawnRecord } from "@muster/wiring";
import { afterAll, expect, it } from "vitest";
import { joined, removeScratch, team, toolEnd } from "../test/team.js";

afterAll(removeScratch);

const IDENTITY = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
};

it.skipIf(!LONG_TESTS)(
  "pi commits in its worktree and lands it with team_land: the base checkout has it, checked",
  async (test) => {
    const shared = team(test);
    const repo = shared.cwd;
    const git = (dir: string, ...args: string[]) =>
      execFileSync("git", ["-C", dir, ...args], {
        encoding: "utf8",
        env: { ...process.env, ...IDENTITY },
      });
    git(repo, "init", "-q", "-b", "main");
    git(repo, "commit", "-q", "--allow-empty", "-m", "start");
    const worktree = `${repo}-coder`;
    git(repo, "worktree", "add", "-q", "-b", "muster/coder", "--", worktree, "main");
    git(repo, "commit", "-q", "--allow-empty", "-m", "the base moves on");
    await shared.roster(); // the team folder, opened (made) as pi will open it
    await writeSpawnRecord(
      { dir: shared.dir },
      {
        v: 1,
        label: "coder",
        engine: "pi",
        server: "/tmp/muster-land-pi",
        serverPid: process.pid,
        pane: "%1",
        pid: process.pid,
        start: processStart(process.pid) ?? "0",
        cwd: worktree,
        by: { pane: "%0" },
        at: new Date().toISOString(),
        worktree: { path: worktree, branch: "muster/coder" },
      },
    );
    const pi = shared.start({
      label: "coder",
      env: IDENTITY,
      script: [
        {
          tool: "bash",
          args: {
            command: `cd '${worktree}' && echo pi > pi.txt && git add pi.txt && git commit -q -m 'pi work'`,
          },
        },
        { tool: "team_land", args: { target: "coder", check: "test -f pi.txt" } },
        { text: "landed" },
      ],
    });
    await joined(pi);
    await pi.prompt("commit your work, then land it");
    await toolEnd(pi, "team_land");
    expect(git(repo, "log", "--format=%s", "main").split("\n").slice(0, 3)).toEqual([
      "pi work",
      "the base moves on",
      "start",
    ]);
    expect(existsSync(path.join(repo, "pi.txt"))).toBe(true);
    expect(git(repo, "status", "--porcelain")).toBe("");
    // The member's branch is untouched: its own commit, on the old base.
    expect(git(worktree, "log", "--format=%s", "muster/coder").split("\n").slice(0, 2)).toEqual([
      "pi work",
      "start",
    ]);
  },
  90_000,
);
