// `muster spawn` and `muster stop` end to end: the built binary, run from a shell pane of a private
// tmux server, spawning a real pi (the faux model, a throwaway home) beside it. `pnpm test` keeps the
// refusals and the hostile folder names (no pi starts); every case that starts or stops a real pi,
// the time limit and the race are `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs, as is the
// newcomer's spawn of a real pi in first-hour-user.ts.
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  assertPrivateSocket,
  eventually,
  LONG_TESTS,
  lineQueue,
  type PrivateTmux,
  startPrivateTmux,
  tmuxEnv,
} from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paneCaller } from "../test/pane-caller.js";
import { check, loadSchemas } from "../test/schema-check.js";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const PI_PACKAGE = path.resolve(import.meta.dirname, "..", "..", "pi-extension");
const PI_CLI = path.join(
  PI_PACKAGE,
  "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js",
);
const EXTENSION = path.join(PI_PACKAGE, "dist", "muster", "index.js");
const FAUX = path.join(PI_PACKAGE, "test", "faux-extension.ts");
const TASK = "review the parser; then say 'done' (it's fine)";
const schemas = loadSchemas();
/** The --json document of spawn, as its schema describes it. */
const spawnDocument = (stdout: string) => {
  const document = JSON.parse(stdout);
  expect(check(schemas, "spawn.schema.json", document)).toEqual([]);
  return document;
};

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-spawn-")));
const home = path.join(scratch, "home");
const repo = path.join(scratch, "repo");
const team = path.join(scratch, "team");
let server: PrivateTmux;

type Run = { status: number | null; stdout: string; stderr: string };

/** Run muster from a new shell pane of the server (its seat is that pane); the pane stays. */
const fromPane = paneCaller(() => server, scratch, repo);

/** Run muster from this test process: no pane among its ancestors. */
function fromOutside(
  args: string[],
  where: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MUSTER, ...args, "-L", server.name], {
      cwd: where.cwd ?? repo,
      env: tmuxEnv({ HOME: home, MUSTER_TEAM_DIR: team, ...where.env }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const panes = () =>
  server
    .tmux(
      "list-panes",
      "-a",
      "-F",
      "#{pane_id} #{session_id} #{window_id} #{pane_left} #{pane_pid}",
    )
    .trim()
    .split("\n")
    .map((line) => {
      const [id, session, window, left, pid] = line.split(" ");
      return { id: id!, session: session!, window: window!, left: Number(left), pid: Number(pid) };
    });

const piArgs = [
  "-e",
  EXTENSION,
  "-e",
  FAUX,
  "--provider",
  "faux",
  "--model",
  "faux-1",
  "--offline",
];

beforeAll(() => {
  for (const folder of [home, repo, path.join(home, "bin"), path.join(home, "tmp")])
    mkdirSync(folder, { recursive: true });
  symlinkSync(PI_CLI, path.join(home, "bin", "pi"));
  server = startPrivateTmux({
    command: "sleep 600",
    env: {
      HOME: home,
      TMPDIR: path.join(home, "tmp"),
      PATH: `${path.join(home, "bin")}:${path.dirname(process.execPath)}:${process.env.PATH}`,
      MUSTER_TEAM_DIR: team,
      MUSTER_HEARTBEAT_MS: "300",
    },
  });
});

afterAll(() => {
  server.kill();
  // The restarted server of the last test, if it is still there.
  try {
    const args = ["-L", server.name, "-f", "/dev/null", "kill-server"];
    assertPrivateSocket(args);
    execFileSync("tmux", args, { stdio: "ignore", env: tmuxEnv() });
  } catch {
    // gone
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe("muster spawn", () => {
  let spawned: { pane: string; pid: number; label: string; state: string; session: string };
  let caller: string;

  it.skipIf(!LONG_TESTS)(
    "opens a pane right of the caller in its session; a real pi joins under the label",
    async () => {
      const run = await fromPane([
        "spawn",
        "pi",
        "--label",
        "bob",
        "--task",
        TASK,
        "--json",
        "--",
        ...piArgs,
      ]);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      spawned = spawnDocument(run.stdout);
      caller = run.pane;
      expect(spawned).toMatchObject({
        label: "bob",
        engine: "pi",
        state: "joined",
        task: { mailed: true },
      });
      const all = panes();
      const mine = all.find((pane) => pane.id === caller)!;
      const theirs = all.find((pane) => pane.id === spawned.pane)!;
      expect(theirs).toMatchObject({ session: mine.session, window: mine.window });
      expect(theirs.left).toBeGreaterThan(mine.left);
      expect(spawned.session).toBe(mine.session);
    },
  );

  it.skipIf(!LONG_TESTS)(
    "the task is the new member's first prompt (on pi's command line) and its first mail, from the spawner",
    async () => {
      const sessions = path.join(team, "sessions");
      // (a record being rewritten has a dot-named temp file beside it)
      const bob = readdirSync(sessions)
        .filter((name) => name.endsWith(".json"))
        .map((name) => JSON.parse(readFileSync(path.join(sessions, name), "utf8")))
        .find((record) => record.label === "bob");
      expect(bob).toBeDefined();
      const mailbox = path.join(team, "mail", bob.id);
      const messages = ["new", "cur"].flatMap((folder) =>
        readdirSync(path.join(mailbox, folder)).map((name) =>
          JSON.parse(readFileSync(path.join(mailbox, folder, name), "utf8")),
        ),
      );
      expect(messages.map((message) => message.body)).toEqual([TASK]);
      // pi's own session file (written once its first turn is done): its first user message.
      const piSessions = path.join(home, ".pi", "agent", "sessions");
      const first = await eventually(
        () => {
          const file = readdirSync(piSessions, { recursive: true, encoding: "utf8" }).find((name) =>
            name.endsWith(`${bob.id}.jsonl`),
          );
          if (!file) return undefined;
          return readFileSync(path.join(piSessions, file), "utf8")
            .split("\n")
            .filter(Boolean)
            .map((line) => JSON.parse(line))
            .find((entry) => entry.message?.role === "user");
        },
        (entry) => entry !== undefined,
        "pi's session file with its first prompt",
      );
      expect(JSON.stringify(first.message.content)).toContain(JSON.stringify(TASK).slice(1, -1));
    },
  );

  it.skipIf(!LONG_TESTS)(
    "status --watch adopts what muster spawns from its record: one agent, under its spawn label",
    async () => {
      const watch = spawn(
        process.execPath,
        [MUSTER, "status", "--watch", "--json", "-L", server.name],
        {
          cwd: repo,
          env: tmuxEnv({ HOME: home, MUSTER_TEAM_DIR: team }),
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      const frames = lineQueue(watch.stdout);
      try {
        await frames.next(); // watching before the spawn
        const run = await fromPane(["spawn", "pi", "--label", "carl", "--json", "--", ...piArgs]);
        expect(run.status).toBe(0);
        const carl = JSON.parse(run.stdout);
        type Agent = { pane: string; pid: number; spawned: string | null };
        const seen: Agent[][] = [];
        for (let frame = 0; frame < 20; frame += 1) {
          const document = JSON.parse(await frames.next());
          const agents = [...document.agents, ...document.elsewhere] as Agent[];
          seen.push(agents.filter((agent) => agent.pane === carl.pane));
          if (seen.at(-1)?.[0]?.spawned === "carl") break;
        }
        // Adopted as the agent spawn proved (its pid), and never a second one in the pane.
        expect(seen.at(-1)).toEqual([expect.objectContaining({ pid: carl.pid, spawned: "carl" })]);
        for (const inPane of seen) expect(inPane.length).toBeLessThanOrEqual(1);
      } finally {
        watch.kill("SIGTERM");
      }
      expect((await fromOutside(["stop", "carl"])).status).toBe(0);
    },
  );

  it.skipIf(!LONG_TESTS)("--list shows what was spawned, by whom, and its state", async () => {
    const run = await fromOutside(["spawn", "--list", "--json"]);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: true,
      spawned: [
        { label: "bob", engine: "pi", pane: spawned.pane, state: "running", by: { pane: caller } },
      ],
    });
  });

  it("from a process whose seat cannot be proven: refused, nothing opened", async () => {
    const before = panes().length;
    const run = await fromOutside(["spawn", "pi", "--label", "carol", "--json"]);
    expect(run.status).toBe(1);
    expect(spawnDocument(run.stdout)).toMatchObject({ ok: false, reason: "unresolved" });
    expect(run.stderr).toContain("no seat to spawn beside, nothing opened");
    expect(panes().length).toBe(before);
  });

  it("codex with an argument that would cost it its app-server daemon: refused in one line, nothing opened", async () => {
    const before = panes().length;
    const run = await fromOutside(["spawn", "codex", "--json", "--", "-c", "model=o3"]);
    expect(run.status).toBe(1);
    expect(spawnDocument(run.stdout)).toMatchObject({ ok: false, reason: "loses-daemon" });
    const line = run.stderr.trim();
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toContain('Codex\'s argument "-c" may run it without its app-server daemon');
    expect(line).toContain("config.toml");
    expect(panes().length).toBe(before);
  });

  it.skipIf(!LONG_TESTS)(
    "a time limit ends the wait with the state reached: exit 1, the pane, the pid, the label and the state",
    async () => {
      // The command starts no pi: the pane opens, and discovery never finds pi in it.
      const run = await fromPane([
        "spawn",
        "pi",
        "--label",
        "slow",
        "--timeout",
        "1",
        "--command",
        "sleep 600",
        "--json",
      ]);
      expect(run.status).toBe(1);
      const document = spawnDocument(run.stdout);
      expect(document).toMatchObject({
        ok: false,
        reason: "time-limit",
        label: "slow",
        state: "opened",
        pane: expect.stringMatching(/^%\d+$/),
        pid: expect.any(Number),
      });
      expect(document.seen).toEqual({ pane: "running", command: "sleep" });
      expect(run.stderr).toBe(
        `muster: pi did not start in 1 s: pane ${document.pane} runs sleep; look at pane ${document.pane} (in main), or end it with muster stop slow\n`,
      );
      expect(panes().some((pane) => pane.id === document.pane)).toBe(true);
      const stopped = await fromOutside(["stop", "slow", "--json"]);
      expect(JSON.parse(stopped.stdout)).toMatchObject({ ok: true, state: "stopped", quit: true });
      expect(panes().some((pane) => pane.id === document.pane)).toBe(false);
    },
  );

  it.skipIf(!LONG_TESTS)(
    "stop refuses a pane muster did not open, and one whose process was replaced",
    async () => {
      const notOurs = await fromOutside(["stop", "nobody"]);
      expect(notOurs.status).toBe(1);
      expect(notOurs.stderr).toContain("closes only panes it opened");
      // Someone respawns bob's pane with their own program: the pane id is the same, not the process.
      const records = path.join(team, "spawned", "bob.json");
      const record = readFileSync(records, "utf8");
      const forged = { ...JSON.parse(record), pane: caller, label: "eve" };
      writeFileSync(path.join(team, "spawned", "eve.json"), JSON.stringify(forged), {
        mode: 0o600,
      });
      const refused = await fromOutside(["stop", "eve", "--json"]);
      expect(refused.status).toBe(1);
      expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, reason: "not-ours" });
      expect(panes().some((pane) => pane.id === caller)).toBe(true);
    },
  );

  it.skipIf(!LONG_TESTS)(
    "stop ends what muster spawned politely: pi quits by its own shutdown (it leaves the team), then its pane closes",
    async () => {
      const labels = () =>
        readdirSync(path.join(team, "sessions")).map(
          (name) => JSON.parse(readFileSync(path.join(team, "sessions", name), "utf8")).label,
        );
      expect(labels()).toContain("bob");
      const run = await fromOutside(["stop", "bob", "--json"]);
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({
        ok: true,
        label: "bob",
        state: "stopped",
        quit: true,
      });
      // Only pi's own shutdown removes its record: a killed pi would leave it behind, gone.
      expect(labels()).not.toContain("bob");
      await eventually(
        panes,
        (all) => !all.some((pane) => pane.id === spawned.pane),
        "the pane to close",
      );
      expect(panes().some((pane) => pane.id === caller)).toBe(true);
    },
  );

  // Three real pi sessions (5.4 s in CI's pnpm test): `pnpm test:long`. core's worktree rules
  // (worktreeAfterStop and the names) are tested there in `pnpm test`.
  it.skipIf(!LONG_TESTS)(
    "--worktree: a worktree beside the repository, the agent's cwd in it, one team in both trees",
    async () => {
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
      const source = path.join(scratch, "project");
      mkdirSync(source);
      git(source, "init", "-q", "-b", "main");
      writeFileSync(path.join(source, "README"), "hi\n");
      git(source, "add", "README");
      git(source, "commit", "-q", "-m", "first");
      const run = await fromPane(
        ["spawn", "pi", "--label", "wt", "--worktree", "--json", "--", ...piArgs],
        source,
      );
      expect(run.stderr).toBe("");
      const spawned = JSON.parse(run.stdout);
      const tree = `${source}-wt`;
      expect(spawned).toMatchObject({ state: "joined", cwd: tree });
      expect(git(source, "worktree", "list", "--porcelain")).toContain(`worktree ${tree}\nHEAD`);
      expect(git(tree, "branch", "--show-current").trim()).toBe("muster/wt");
      expect(realpathSync(`/proc/${spawned.pid}/cwd`)).toBe(tree);
      // Without an explicit team folder, both trees find the same team: the git common folder.
      const teamOf = async (cwd: string) => {
        const status = await fromOutside(["status", "--json"], {
          cwd,
          env: { MUSTER_TEAM_DIR: undefined, MUSTER_HOME: path.join(scratch, "state") },
        });
        const dir = JSON.parse(status.stdout).team.dir as string;
        expect(dir.startsWith(path.join(scratch, "state"))).toBe(true);
        return dir;
      };
      expect(await teamOf(tree)).toBe(await teamOf(source));
      // The same branch again, while the worktree holds it: refused, nothing opened.
      const before = panes().length;
      const again = await fromPane(
        [
          "spawn",
          "pi",
          "--label",
          "wt2",
          "--worktree",
          "--branch",
          "muster/wt",
          "--json",
          "--",
          ...piArgs,
        ],
        source,
      );
      expect(again.status).toBe(1);
      expect(JSON.parse(again.stdout)).toMatchObject({ ok: false, reason: "branch-checked-out" });
      expect(panes().length).toBe(before + 1);
      // Stopped with work not committed: the worktree stays, and stop says what is left and how.
      writeFileSync(path.join(tree, "notes.md"), "unsaved thoughts\n");
      const stopped = await fromOutside(["stop", "wt"]);
      expect(stopped.status, stopped.stderr).toBe(0);
      expect(stopped.stdout).toContain(
        `its worktree ${tree} is kept: 1 uncommitted change(s) there (git -C ${tree} status); commit them, or lose them with git worktree remove --force ${tree}; its branch muster/wt stays`,
      );
      expect(readFileSync(path.join(tree, "notes.md"), "utf8")).toBe("unsaved thoughts\n");
      // A clean one is removed once its agent is stopped; its branch and commits stay.
      const clean = await fromPane(
        ["spawn", "pi", "--label", "wt3", "--worktree", "--json", "--", ...piArgs],
        source,
      );
      expect(JSON.parse(clean.stdout)).toMatchObject({ state: "joined", cwd: `${source}-wt3` });
      const cleanStop = await fromOutside(["stop", "wt3", "--json"]);
      expect(JSON.parse(cleanStop.stdout)).toMatchObject({
        ok: true,
        state: "stopped",
        worktree: { path: `${source}-wt3`, branch: "muster/wt3", removed: true },
      });
      expect(existsSync(`${source}-wt3`)).toBe(false);
      expect(git(source, "worktree", "list", "--porcelain")).not.toContain(`${source}-wt3`);
      expect(git(source, "branch", "--list", "muster/wt3")).toContain("muster/wt3");
      expect(existsSync(tree)).toBe(true);
    },
  );

  it.each([
    ["split", []],
    ["--window", ["--window"]],
  ])(
    "from a folder named like a tmux format (%s): nothing runs, the pane starts in that folder",
    async (_how, more) => {
      // The report: mkdir 'x#(touch /tmp/PWNED)' && cd "$_" && muster spawn pi
      const planted = path.join(scratch, `PWNED-${more.length}`);
      const folder = path.join(repo, `x#(touch ${planted})#{pane_id}#D`);
      mkdirSync(folder, { recursive: true });
      const label = `odd${more.length}`;
      const run = await fromPane(
        [
          "spawn",
          "pi",
          "--label",
          label,
          ...more,
          "--timeout",
          "1",
          "--command",
          "sleep 600",
          "--json",
        ],
        folder,
      );
      const document = spawnDocument(run.stdout);
      expect(document).toMatchObject({ label, state: "opened", cwd: folder });
      expect(realpathSync(`/proc/${document.pid}/cwd`)).toBe(folder);
      expect(existsSync(planted)).toBe(false);
      expect((await fromOutside(["stop", label])).status).toBe(0);
    },
  );

  it.skipIf(!LONG_TESTS)(
    "two shells spawn one label at once: one pane opens, the others are refused with the holder",
    async () => {
      const before = panes().length;
      const args = ["spawn", "pi", "--label", "dup", "--timeout", "2", "--command", "sleep 600"];
      const runs = await Promise.all([1, 2, 3].map(() => fromPane([...args, "--json"])));
      const documents = runs.map((run) => spawnDocument(run.stdout));
      const opened = documents.filter((document) => document.state === "opened");
      expect(opened).toHaveLength(1);
      // Three caller panes, and exactly one pane spawned.
      expect(panes().length).toBe(before + 3 + 1);
      for (const document of documents.filter((entry) => entry.state !== "opened"))
        expect(["label-spawning", "label-spawned"]).toContain(document.reason);
      const list = JSON.parse((await fromOutside(["spawn", "--list", "--json"])).stdout).spawned;
      expect(list.filter((entry: { label: string }) => entry.label === "dup")).toMatchObject([
        { pane: opened[0].pane },
      ]);
      expect((await fromOutside(["stop", "dup"])).status).toBe(0);
    },
  );

  it.skipIf(!LONG_TESTS)(
    "after a server restart that reuses the pane id, stop refuses",
    async () => {
      // What stop judges is the record's server and pane, not the engine: a pane that runs no pi
      // (its spawn ends at the time limit, the record kept) is enough, and starts no pi.
      const run = await fromPane([
        "spawn",
        "pi",
        "--label",
        "dan",
        "--json",
        "--timeout",
        "1",
        "--command",
        "sleep 600",
      ]);
      const dan = JSON.parse(run.stdout);
      expect(dan).toMatchObject({ reason: "time-limit", label: "dan" });
      // The server dies; a new one on the same socket grows panes until the id is taken again.
      server.kill();
      const args = ["-L", server.name, "-f", "/dev/null"];
      assertPrivateSocket(args);
      const env = tmuxEnv({ HOME: home });
      // The old server may still be going down: retry until a new one answers.
      await eventually(
        () => {
          try {
            execFileSync("tmux", [...args, "new-session", "-d", "-s", "main", "sleep 600"], {
              env,
              stdio: "pipe",
            });
            return true;
          } catch {
            return false;
          }
        },
        Boolean,
        "a new server on the same socket",
      );
      for (let index = 0; index <= Number(dan.pane.slice(1)); index += 1)
        execFileSync("tmux", [...args, "new-window", "-d", "-t", "main", "sleep 600"], { env });
      const reused = execFileSync("tmux", [...args, "list-panes", "-a", "-F", "#{pane_id}"], {
        env,
        encoding: "utf8",
      });
      expect(reused.split("\n")).toContain(dan.pane);
      const refused = await fromOutside(["stop", "dan", "--json"]);
      expect(refused.status).toBe(1);
      expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, reason: "server-restarted" });
      const after = execFileSync("tmux", [...args, "list-panes", "-a", "-F", "#{pane_id}"], {
        env,
        encoding: "utf8",
      });
      expect(after.split("\n")).toContain(dan.pane);
      execFileSync("tmux", [...args, "kill-server"], { env });
    },
  );
});
