// `muster stop` and the worktree a spawn record names: the record is a file another process can
// write, so it alone never removes a worktree. A planted record whose pane is gone, naming the
// user's own clean worktree on the named branch, leaves it (its ignored files too) and says so.
// A worktree `spawn --worktree` made is still removed: spawn.test.ts's long `--worktree` case.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startPrivateTmux } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { joinedTeam, musterKit } from "../test/run.ts";

const { scratch, newTeam, muster } = musterKit("muster-stop-wt-");
const tmux = startPrivateTmux();
afterAll(() => {
  tmux.kill();
  rmSync(scratch, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-C", cwd, ...args], {
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });

describe("stop with a planted record naming a worktree", () => {
  it("keeps a clean worktree muster did not make, and says so in one line", async () => {
    const source = path.join(scratch, "project");
    mkdirSync(source);
    git(source, "init", "-q", "-b", "main");
    writeFileSync(path.join(source, ".gitignore"), "*.log\n");
    git(source, "add", ".gitignore");
    git(source, "commit", "-q", "-m", "first");
    // The user's own worktree, on the branch muster would name; its ignored build log is theirs.
    const tree = `${source}-eve`;
    git(source, "worktree", "add", "-q", "-b", "muster/eve", "--", tree);
    writeFileSync(path.join(tree, "build.log"), "hours of output\n");
    const dir = newTeam();
    await joinedTeam(dir, { alice: "a1" });
    const serverPid = Number(tmux.tmux("display-message", "-p", "#{pid}").trim());
    // A record another process wrote: this server, a pane it does not have (gone).
    const record = {
      v: 1,
      label: "eve",
      engine: "pi",
      server: tmux.socket,
      serverPid,
      pane: "%999",
      pid: 999_999,
      start: "1",
      cwd: tree,
      by: { pane: "%0" },
      at: new Date().toISOString(),
      worktree: { path: tree, branch: "muster/eve" },
    };
    mkdirSync(path.join(dir, "spawned"), { mode: 0o700 });
    writeFileSync(path.join(dir, "spawned", "eve.json"), JSON.stringify(record), { mode: 0o600 });
    const stopped = await muster(["stop", "eve", "--json"], { env: { MUSTER_TEAM_DIR: dir } });
    expect(stopped.status, stopped.stderr).toBe(0);
    const document = JSON.parse(stopped.stdout);
    expect(document).toMatchObject({
      ok: true,
      state: "gone",
      worktree: { path: tree, branch: "muster/eve", removed: false },
    });
    expect(document.worktree.note).toBe(
      `its worktree ${tree} is kept: muster finds no mark there that it made it for eve (a spawn record alone does not prove it); git worktree remove ${tree} removes it`,
    );
    expect(readFileSync(path.join(tree, "build.log"), "utf8")).toBe("hours of output\n");
    expect(git(source, "worktree", "list", "--porcelain")).toContain(`worktree ${tree}\n`);
    expect(existsSync(tree)).toBe(true);
  });
});
