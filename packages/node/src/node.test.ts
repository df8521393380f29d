import { execFileSync, spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  createTmuxRunner,
  findTeamFolder,
  insideTeam,
  nodeFs,
  processAlive,
  processStart,
  readProcessTable,
  stateRoot,
} from "./index.js";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-node-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const sleeper = (argv: string[] = ["30"]) => {
  const child = spawn("sleep", argv, { stdio: "ignore" });
  return child;
};
const exited = (child: ReturnType<typeof spawn>) =>
  new Promise((resolve) => child.once("exit", resolve));

describe("the process table", () => {
  it("has this process and a known child, with parent, name, argv and start time", async () => {
    const child = spawn("sleep", ["31.5"], { stdio: "ignore" });
    const table = await readProcessTable();
    child.kill();
    if (!table.ok) throw new Error(table.error);
    expect(table.source).toBe("proc");
    const self = table.processes.find((row) => row.pid === process.pid);
    expect(self).toMatchObject({
      ppid: process.ppid,
      argv: process.argv.slice(0, 1).length ? expect.any(Array) : [],
    });
    expect(self?.start).toMatch(/^\d+$/);
    expect(table.processes.find((row) => row.pid === child.pid)).toMatchObject({
      ppid: process.pid,
      name: "sleep",
      argv: ["sleep", "31.5"],
    });
  });

  it("a process name with spaces and parentheses is read whole", async () => {
    const child = spawn("bash", ["-c", "exec -a 'x (y) z' sleep 30"], { stdio: "ignore" });
    // Until bash has run its exec, the row is bash's, and in the exec itself its argv is empty
    // (seen once in CI): read again until it is neither (a loaded machine can take longer than
    // any fixed pause).
    const argv = async () => {
      const table = await readProcessTable();
      return table.ok ? table.processes.find((row) => row.pid === child.pid)?.argv : undefined;
    };
    let seen = await argv();
    const execed = (argv: string[] | undefined) =>
      argv !== undefined && argv.length > 0 && argv[0] !== "bash";
    for (let tries = 0; tries < 200 && !execed(seen); tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      seen = await argv();
    }
    child.kill();
    expect(seen).toEqual(["x (y) z", "30"]);
  });
});

describe("process liveness", () => {
  it("alive by pid and start time; dead once exited; dead with another start time", async () => {
    const child = sleeper();
    const start = processStart(child.pid!);
    expect(start).toMatch(/^\d+$/);
    expect(processAlive(child.pid!, start)).toBe("alive");
    // A pid with no start time to match proves nothing: it may be another process by now.
    expect(processAlive(child.pid!, undefined)).toBe("unknown");
    expect(processAlive(child.pid!, String(Number(start) + 1))).toBe("dead");
    child.kill("SIGKILL");
    await exited(child);
    expect(processAlive(child.pid!, start)).toBe("dead");
    expect(processStart(child.pid!)).toBeUndefined();
    expect(processAlive(0, undefined)).toBe("unknown");
  });

  it("an exited process its parent has not reaped (a zombie) is dead", async () => {
    // The background sleep's parent becomes `sleep 30` (exec), which never waits for it.
    const parent = spawn("sh", ["-c", "sleep 0.5 & echo $!; exec sleep 30"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    const pid = Number(
      await new Promise<string>((resolve) =>
        parent.stdout.once("data", (chunk) => resolve(String(chunk))),
      ),
    );
    const start = processStart(pid);
    expect(processAlive(pid, start)).toBe("alive");
    // It exits after 0.5 s; a loaded machine may take longer to show it: look until it does.
    const zombie = () => /\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    for (let tries = 0; tries < 200 && !zombie(); tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readFileSync(`/proc/${pid}/stat`, "utf8")).toMatch(/\) Z /);
    expect(processAlive(pid, start)).toBe("dead");
    parent.kill("SIGKILL");
  });

  // Its first thread exited alone (SYS_exit, not exit_group): /proc/<pid>/stat says Z, as ps says
  // `Zl`, while its other thread runs on. It is no zombie: it runs, and is not to be called ended.
  const sysExit = { x64: 60, arm64: 93 }[process.arch as string];
  const perlThreads = (() => {
    try {
      execFileSync("perl", ["-Mthreads", "-e", "1"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  })();
  it.runIf(sysExit !== undefined && perlThreads && process.platform === "linux")(
    "a process whose first thread exited while another runs is alive",
    async () => {
      const script = `threads->create(sub { sleep 1 while 1 })->detach; $| = 1; print "$$\\n"; syscall(${sysExit}, 0)`;
      const child = spawn("perl", ["-Mthreads", "-e", script], {
        stdio: ["ignore", "pipe", "ignore"],
      });
      try {
        const pid = Number(
          await new Promise<string>((resolve) =>
            child.stdout.once("data", (chunk) => resolve(String(chunk))),
          ),
        );
        const start = processStart(pid);
        const leaderExited = () => /\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
        for (let tries = 0; tries < 200 && !leaderExited(); tries += 1)
          await new Promise((resolve) => setTimeout(resolve, 50));
        expect(readFileSync(`/proc/${pid}/stat`, "utf8")).toMatch(/\) Z /);
        expect(readFileSync(`/proc/${pid}/status`, "utf8")).toMatch(/^Threads:\s+2$/m);
        expect(processAlive(pid, start)).toBe("alive");
      } finally {
        child.kill("SIGKILL");
        await exited(child);
      }
    },
  );

  // A real reused pid: as root, ask the kernel for the same pid again through ns_last_pid.
  it.runIf(process.getuid?.() === 0)(
    "a reused pid has another start time, so the old process is dead",
    async () => {
      const first = sleeper();
      const pid = first.pid!;
      const start = processStart(pid)!;
      first.kill("SIGKILL");
      await exited(first);
      await new Promise((resolve) => setTimeout(resolve, 20));
      let second: ReturnType<typeof spawn> | undefined;
      for (let attempt = 0; attempt < 5 && second?.pid !== pid; attempt += 1) {
        second?.kill("SIGKILL");
        try {
          writeFileSync("/proc/sys/kernel/ns_last_pid", String(pid - 1));
        } catch {
          break; // no permission to steer pids here: the start-time rule is covered above
        }
        second = sleeper();
      }
      if (second?.pid === pid) {
        expect(processStart(pid)).not.toBe(start);
        expect(processAlive(pid, start)).toBe("dead");
      }
      second?.kill("SIGKILL");
    },
  );
});

describe("the tmux runner", () => {
  it("answers status and output; a signal-killed or timed-out child is null", async () => {
    const script = path.join(scratch, "fake-tmux.sh");
    writeFileSync(
      script,
      '#!/bin/sh\ncase "$1" in ok) echo "out $2"; exit 0;; fail) echo err >&2; exit 1;; kill) kill -9 $$;; hang) exec sleep 5;; esac\n',
      {
        mode: 0o755,
      },
    );
    const run = createTmuxRunner({ binary: script, timeoutMs: 300 });
    expect(await run(["ok", "tab\tand é"])).toEqual({
      status: 0,
      stdout: "out tab\tand é\n",
      stderr: "",
    });
    expect(await run(["fail"])).toEqual({ status: 1, stdout: "", stderr: "err\n" });
    const killed = await run(["kill"]);
    expect(killed.status).toBeNull();
    expect(killed.timedOutAfterMs).toBeUndefined();
    // A hung tmux is told apart from a killed one: it did not answer in the time allowed.
    expect(await run(["hang"])).toMatchObject({ status: null, timedOutAfterMs: 300 });
    expect((await createTmuxRunner({ binary: path.join(scratch, "missing") })(["x"])).status).toBe(
      127,
    );
  });
});

describe("the roster filesystem", () => {
  it("creates folders with their parents, writes 0600, links exclusively, and reports codes", async () => {
    const folder = path.join(scratch, "a", "b");
    await nodeFs.mkdir(folder, 0o700);
    await expect(nodeFs.mkdir(folder, 0o700)).rejects.toMatchObject({ code: "EEXIST" });
    expect((await nodeFs.stat(folder)).mode).toBe(0o700);
    await nodeFs.writeFile(`${folder}/x`, "hello", 0o600);
    expect(statSync(`${folder}/x`).mode & 0o777).toBe(0o600);
    await nodeFs.link(`${folder}/x`, `${folder}/y`);
    await expect(nodeFs.link(`${folder}/x`, `${folder}/y`)).rejects.toMatchObject({
      code: "EEXIST",
    });
    await expect(nodeFs.readFile(`${folder}/nope`)).rejects.toMatchObject({ code: "ENOENT" });
    expect((await nodeFs.readdir(folder)).sort()).toEqual(["x", "y"]);
    await nodeFs.removeTree(path.join(scratch, "a"));
    expect(nodeFs.ownUid()).toBe(process.getuid?.());
  });
});

describe("the team folder", () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-C", cwd, ...args], { encoding: "utf8", stdio: "pipe" });
  const repo = path.join(scratch, "my repo");
  mkdirSync(repo);
  git(repo, "init", "-q", "-b", "main");
  git(
    repo,
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@t",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "x",
  );
  git(repo, "worktree", "add", "-q", path.join(scratch, "wt"), "-b", "feature");
  const env = { HOME: scratch, PATH: process.env.PATH };

  it("a worktree's team is its main checkout's", async () => {
    const main = await findTeamFolder({ cwd: repo, env });
    const worktree = await findTeamFolder({ cwd: path.join(scratch, "wt"), env });
    const nested = path.join(repo, "deep", "er");
    mkdirSync(nested, { recursive: true });
    expect(worktree).toEqual(main);
    expect(await findTeamFolder({ cwd: nested, env })).toEqual(main);
    expect(main.key).toBe(path.join(repo, ".git"));
    expect(main.name).toBe("my repo");
    expect(main.dir).toMatch(
      new RegExp(`^${scratch}/\\.local/state/muster/teams/my-repo-[0-9a-f]{12}$`),
    );
    expect(main.worktrees).toEqual([repo, path.join(scratch, "wt")]);
    expect(insideTeam(main, nested)).toBe(true);
    expect(insideTeam(main, `${repo}-other`)).toBe(false);
  });

  it("outside git, the working directory is the team", async () => {
    const plain = path.join(scratch, "plain");
    mkdirSync(plain);
    const team = await findTeamFolder({
      cwd: plain,
      env: { ...env, GIT_CEILING_DIRECTORIES: scratch },
    });
    expect(team).toMatchObject({ key: plain, name: "plain", source: "cwd", worktrees: [plain] });
  });

  it.each([
    [{ MUSTER_TEAM_DIR: "/tmp/exact" }, "/tmp/exact"],
    [{ MUSTER_HOME: "/tmp/mh" }, /^\/tmp\/mh\/teams\/my-repo-[0-9a-f]{12}$/],
    [{ XDG_STATE_HOME: "/tmp/xdg" }, /^\/tmp\/xdg\/muster\/teams\/my-repo-/],
  ])("%j moves the folder", async (extra, expected) => {
    const team = await findTeamFolder({ cwd: repo, env: { ...env, ...extra } });
    if (typeof expected === "string") expect(team.dir).toBe(expected);
    else expect(team.dir).toMatch(expected);
  });

  it("an explicit folder wins, and the state root honours MUSTER_HOME", async () => {
    expect((await findTeamFolder({ cwd: repo, env, teamDir: "rel" })).dir).toBe(
      path.resolve("rel"),
    );
    expect(stateRoot({ MUSTER_HOME: "/x" })).toBe("/x");
  });
});
