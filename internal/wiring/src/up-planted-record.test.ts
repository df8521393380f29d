// `muster up` against a spawn record another process planted in the team folder for a declared
// member that is down: its `cwd` and `worktree` name folders outside the repository (another
// repository of the person's, a folder elsewhere). up starts an engine there only where git lists
// the folder as a worktree of this repository (and on the record's branch); else it starts the
// member where muster.toml declares it, and says why. A private tmux server, a real roster, real
// git; the engine's place is taken by a process that never joins (up reads where it started).
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { seatByPane } from "@muster/tmux";
import { afterAll, expect, it } from "vitest";
import { openTeam } from "./open-team.ts";
import { readSpawnRecord, writeSpawnRecord } from "./spawn-records.ts";
import { teamUp } from "./team-up.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-up-planted-")));
const servers: PrivateTmux[] = [];
afterAll(() => {
  for (const server of servers) server.kill();
  rmSync(scratch, { recursive: true, force: true });
});

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, ...args], {
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  }).trim();

it.each([
  ["another repository of the person's as its worktree", "worktree"],
  ["a folder outside the repository as its cwd", "cwd"],
])(
  "a planted record naming %s: up starts the member in the repository",
  async (_, kind) => {
    const home = mkdtempSync(path.join(scratch, "case-"));
    const repo = path.join(home, "repo");
    const other = path.join(home, "other");
    const bin = path.join(home, "bin");
    mkdirSync(repo);
    mkdirSync(bin);
    git(home, "init", "-q", "-b", "main", repo);
    git(repo, "commit", "-q", "--allow-empty", "-m", "first");
    git(home, "init", "-q", "-b", "x", other);
    git(other, "commit", "-q", "--allow-empty", "-m", "theirs");
    writeFileSync(path.join(repo, "muster.toml"), '[[member]]\nlabel = "bob"\nengine = "pi"\n');
    writeFileSync(path.join(bin, "pi"), "#!/bin/sh\nexec sleep 600\n");
    chmodSync(path.join(bin, "pi"), 0o755);
    const env = { PATH: `${bin}:${process.env.PATH}`, HOME: home };
    const server = startPrivateTmux({ command: "sleep 600", env });
    servers.push(server);
    const lead = server.tmux("display-message", "-p", "-t", "main", "#{pane_id}").trim();
    const seated = await seatByPane(server.run, lead, { name: server.name });
    if (!seated.ok) throw new Error(seated.error);
    const teamDir = path.join(home, "team");
    const opened = await openTeam({ dir: teamDir });
    if (!opened.ok) throw new Error(opened.error);
    const serverPid = Number(server.tmux("display-message", "-p", "#{pid}").trim());
    // Planted: a record of bob taken down, naming the other repository.
    await writeSpawnRecord(
      { dir: teamDir },
      {
        v: 1,
        label: "bob",
        engine: "pi",
        server: server.socket,
        serverPid,
        pane: "%99",
        pid: 999_999,
        start: "0",
        cwd: other,
        by: { pane: lead },
        at: new Date().toISOString(),
        down: new Date().toISOString(),
        ...(kind === "worktree" ? { worktree: { path: other, branch: "x" } } : {}),
      },
    );
    const up = await teamUp(
      {
        cwd: repo,
        labels: ["bob"],
        here: { seat: { ok: true, seat: seated.seat }, id: "lead-id" },
        timeoutMs: 1000,
      },
      { roster: opened.roster, teamDir, run: server.run, target: { name: server.name }, env },
    );
    expect(up.ok).toBe(true);
    const bob = up.ok ? up.members[0] : undefined;
    expect(bob?.pane).toBeDefined();
    expect(bob?.note).toContain(kind === "worktree" ? "does not list" : "outside this repository");
    const started = await readSpawnRecord({ dir: teamDir }, "bob");
    expect(started?.cwd).toBe(repo);
    expect(started?.worktree).toBeUndefined();
    const where = server.tmux("display-message", "-p", "-t", bob!.pane!, "#{pane_current_path}");
    expect(realpathSync(where.trim())).toBe(repo);
    expect(git(other, "log", "--format=%s")).toBe("theirs");
  },
  30_000,
);
