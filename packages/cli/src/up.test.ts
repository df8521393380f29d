// `muster up` and `muster down` end to end: the built binary, run from outside tmux against a
// private server that is not running yet, bringing up a team muster.toml declares (real pi, the
// faux model, a throwaway home), taking it down, and bringing it back into the same pi sessions
// after the server is killed; mail to a member that is down waits for it (long), and `--here`
// opens beside the caller's pane. Each real pi start is `pnpm test:long` (MUSTER_LONG_TESTS), which
// CI runs; `pnpm test` keeps the refusal of a muster.toml that asks for more than the engine.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { assertPrivateSocket, eventually, LONG_TESTS, tmuxEnv } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { check, loadSchemas } from "../test/schema-check.js";
import { writePi } from "../test/up-kit.js";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const TASK = "write the changelog entry";
const schemas = loadSchemas();

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-up-")));
const home = path.join(scratch, "home");
const repo = path.join(scratch, "repo");
const team = path.join(scratch, "team");
const server = `muster-test-${randomBytes(6).toString("hex")}`;
const env = {
  HOME: home,
  TMPDIR: path.join(home, "tmp"),
  PATH: `${path.join(home, "bin")}:${path.dirname(process.execPath)}:${process.env.PATH}`,
  MUSTER_TEAM_DIR: team,
  MUSTER_HEARTBEAT_MS: "300",
};

type Run = { status: number | null; stdout: string; stderr: string };

/** muster from this test process (outside tmux), on the private server. */
function muster(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MUSTER, ...args, "-L", server], {
      cwd: repo,
      env: tmuxEnv(env),
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

function tmux(...args: string[]): string {
  const full = ["-L", server, ...args];
  assertPrivateSocket(full);
  return execFileSync("tmux", full, { env: tmuxEnv(env), encoding: "utf8" });
}

const serverRuns = () => {
  try {
    tmux("list-sessions");
    return true;
  } catch {
    return false;
  }
};

const declare = (text: string) => writeFileSync(path.join(repo, "muster.toml"), text);
const PI_ARGS = 'args = ["--provider", "faux", "--model", "faux-1", "--offline"]';
const TEAM = `[[member]]\nlabel = "alice"\nengine = "pi"\ntask = "${TASK}"\n${PI_ARGS}\n\n[[member]]\nlabel = "bob"\nengine = "pi"\nworktree = true\n${PI_ARGS}\n`;

/** The team's members as their records say: label → member id. */
function members(): Record<string, string> {
  const folder = path.join(team, "sessions");
  const found: Record<string, string> = {};
  for (const name of existsSync(folder) ? readdirSync(folder) : []) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    const record = JSON.parse(readFileSync(path.join(folder, name), "utf8"));
    if (record.label) found[record.label] = record.id;
  }
  return found;
}

/** pi's session file for `id` (its earlier conversation). */
function piSession(id: string): string | undefined {
  const folder = path.join(home, ".pi", "agent", "sessions");
  const file = readdirSync(folder, { recursive: true, encoding: "utf8" }).find((name) =>
    name.endsWith(`${id}.jsonl`),
  );
  return file && path.join(folder, file);
}

const document = (run: Run, schema: string) => {
  const parsed = JSON.parse(run.stdout);
  expect(check(schemas, `${schema}.schema.json`, parsed)).toEqual([]);
  return parsed;
};

beforeAll(() => {
  for (const folder of [home, repo, path.join(home, "bin"), path.join(home, "tmp")])
    mkdirSync(folder, { recursive: true });
  // pi with muster's extension and the faux model: what `muster install pi` and a provider give.
  writePi(path.join(home, "bin"), home);
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", repo, ...args], { env: { ...process.env, HOME: home } });
  git("init", "-q", "-b", "main");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start");
});

afterAll(() => {
  if (serverRuns()) tmux("kill-server");
  rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
});

describe("muster up and down", () => {
  const first: Record<string, { session: string; id: string }> = {};

  it("refuses a muster.toml that would run more than the engine, naming the line: nothing starts", async () => {
    declare(`[[member]]\nlabel = "eve"\nengine = "pi"\nargs = ["-e", "./evil.ts"]\n`);
    const run = await muster(["up"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/eve gives pi an argument .*-e.*\(line 4\)/);
    expect(serverRuns()).toBe(false);
  });

  it("refuses a muster.toml task that is an engine's command, not a prompt: nothing starts", async () => {
    declare(`[[member]]\nlabel = "eve"\nengine = "pi"\ntask = "/team spawn codex"\n`);
    const run = await muster(["up", "--json"]);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, reason: "bad-value" });
    expect(run.stderr).toMatch(/eve's task .*\(line 4\)/);
    expect(serverRuns()).toBe(false);
  });

  it.skipIf(!LONG_TESTS)(
    "with no tmux server, starts one and brings the declared team up in its own window",
    async () => {
      declare(TEAM);
      const run = await muster(["up", "--json"]);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      const answer = document(run, "up");
      expect(answer.window).toMatchObject({ name: "repo", session: "repo", started: true });
      expect(answer.members).toMatchObject([
        { label: "alice", engine: "pi", outcome: "fresh" },
        { label: "bob", engine: "pi", outcome: "fresh" },
      ]);
      // One window named for the team, its two members side by side (the placeholder gone).
      const panes = tmux("list-panes", "-t", "repo:repo", "-F", "#{pane_id}").trim().split("\n");
      expect(panes.sort()).toEqual(
        answer.members.map((member: { pane: string }) => member.pane).sort(),
      );
      // Each joined as its pi session: the member id is the session muster named.
      const ids = members();
      for (const member of answer.members) {
        expect(ids[member.label]).toBe(member.session);
        first[member.label] = { session: member.session, id: ids[member.label]! };
      }
      expect(existsSync(path.join(scratch, "repo-bob"))).toBe(true);
    },
  );

  it.skipIf(!LONG_TESTS)(
    "is idempotent, also twice at once: the live members are left alone",
    async () => {
      const [one, two] = await Promise.all([muster(["up", "--json"]), muster(["up", "--json"])]);
      for (const run of [one, two]) {
        expect(run.status).toBe(0);
        expect(
          document(run, "up").members.map((member: { outcome: string }) => member.outcome),
        ).toEqual(["live", "live"]);
      }
      expect(
        tmux("list-panes", "-t", "repo:repo", "-F", "#{pane_id}").trim().split("\n"),
      ).toHaveLength(2);
    },
  );

  it.skipIf(!LONG_TESTS)(
    "down asks each to quit, closes its pane and keeps its session and worktree",
    async () => {
      const run = await muster(["down", "--json"]);
      expect(run.status).toBe(0);
      const answer = document(run, "down");
      expect(answer.members).toMatchObject([
        { label: "alice", outcome: "down", kept: { session: first.alice!.session } },
        {
          label: "bob",
          outcome: "down",
          kept: { session: first.bob!.session, worktree: path.join(scratch, "repo-bob") },
        },
      ]);
      const text = await muster(["down"]);
      expect(text.stdout).toContain("alice: not running; kept its session");
      expect(existsSync(path.join(scratch, "repo-bob"))).toBe(true);
    },
  );

  it.skipIf(!LONG_TESTS)(
    "after tmux kill-server, two ups at once resume each member once, in its pi session",
    async () => {
      if (serverRuns()) tmux("kill-server");
      // While it is down, bob's branch moves and its worktree has changes: up keeps both as they are.
      const worktree = path.join(scratch, "repo-bob");
      const git = (...args: string[]) =>
        execFileSync("git", ["-C", worktree, ...args], { encoding: "utf8" }).trim();
      git(
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "moved",
      );
      const head = git("rev-parse", "HEAD");
      writeFileSync(path.join(worktree, "work-in-progress.txt"), "not committed\n");
      const runs = await Promise.all([muster(["up", "--json"]), muster(["up", "--json"])]);
      for (const run of runs) {
        expect(run.stderr).toBe("");
        expect(run.status).toBe(0);
      }
      const [one, two] = runs.map((run) => document(run, "up").members) as {
        label: string;
        outcome: string;
        session?: string;
        pane?: string;
      }[][];
      // Each member started by exactly one of the two; the other left it alone.
      const started = [...one!, ...two!].filter(
        (member) => !["live", "racing"].includes(member.outcome),
      );
      expect(started.map((member) => member.label).sort()).toEqual(["alice", "bob"]);
      expect(started.find((member) => member.label === "alice")).toMatchObject({
        outcome: "resumed",
        session: first.alice!.session,
      });
      // bob never had a turn: pi wrote no conversation, so it starts anew under the same session.
      expect(started.find((member) => member.label === "bob")).toMatchObject({
        outcome: "fresh",
        session: first.bob!.session,
      });
      const panes = tmux("list-panes", "-a", "-F", "#{window_name} #{pane_id}").trim().split("\n");
      expect(panes.sort()).toEqual(started.map((member) => `repo ${member.pane}`).sort());
      const ids = members();
      expect(ids.alice).toBe(first.alice!.id);
      expect(ids.bob).toBe(first.bob!.id);
      // The earlier conversation is there: alice's first prompt (its task) is in the session it is in.
      expect(readFileSync(piSession(first.alice!.session)!, "utf8")).toContain(TASK);
      // bob is back in its worktree.
      const bob = started.find((member) => member.label === "bob")!;
      const cwd = tmux("display-message", "-p", "-t", bob.pane!, "#{pane_current_path}");
      expect(cwd.trim()).toBe(worktree);
      expect(git("rev-parse", "HEAD")).toBe(head);
      expect(git("branch", "--show-current")).toBe("muster/bob");
      expect(readFileSync(path.join(worktree, "work-in-progress.txt"), "utf8")).toBe(
        "not committed\n",
      );
    },
  );

  it.skipIf(!LONG_TESTS)(
    "an up SIGKILLed while it opens the panes leaves nothing the next up cannot finish",
    async () => {
      expect((await muster(["down"])).status).toBe(0);
      if (serverRuns()) tmux("kill-server");
      for (const after of [300, 1500, 3000]) {
        const child = spawn(process.execPath, [MUSTER, "up", "-L", server], {
          cwd: repo,
          env: tmuxEnv(env),
          stdio: "ignore",
        });
        await new Promise((resolve) => setTimeout(resolve, after));
        child.kill("SIGKILL");
        const run = await muster(["up", "--json"]);
        expect(run.status, run.stderr).toBe(0);
        const answer = document(run, "up");
        expect(answer.members.map((member: { label: string }) => member.label)).toEqual([
          "alice",
          "bob",
        ]);
        // One pane per member in the team's window, the placeholder gone, each member once.
        const panes = tmux(
          "list-panes",
          "-t",
          "repo:repo",
          "-F",
          "#{pane_id} #{@muster-placeholder}",
        );
        expect(panes.trim().split("\n")).toHaveLength(2);
        expect(panes).not.toContain(" 1");
        // A member the killed up had started is left to join by itself.
        await eventually(
          () => Object.keys(members()).sort(),
          (labels) => labels.join() === "alice,bob",
          "both members on the team",
          { attempts: 300, intervalMs: 100 },
        );
        expect((await muster(["down"])).status).toBe(0);
        if (serverRuns()) tmux("kill-server");
      }
    },
    120_000,
  );

  it.skipIf(!LONG_TESTS)("a session that is gone starts fresh and says so", async () => {
    expect((await muster(["down", "alice"])).status).toBe(0);
    unlinkSync(piSession(first.alice!.session)!);
    const run = await muster(["up", "alice"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /alice: started fresh \(pi\) in pane %\d+; its pi session \S+ has no conversation here/,
    );
  });

  // A real pi taken down and brought back (~8 s): long.
  it.skipIf(!LONG_TESTS)(
    "mail to a declared member that is down waits for it, its label kept; up brings it back woken by it",
    async () => {
      expect((await muster(["down", "bob"])).status).toBe(0);
      expect(members().bob).toBeUndefined();
      const body = "the notes are in docs/notes.md";
      // A person's send: kept in bob's mailbox, under the member id it comes back as, and said so.
      const sent = await muster(["send", "bob", body]);
      expect(sent.stderr).toBe("");
      expect(sent.status).toBe(0);
      expect(sent.stdout).toContain("bob is down; it will see this when it comes back");
      const json = await muster(["send", "bob", "and the changelog", "--json"]);
      expect(json.status).toBe(0);
      expect(document(json, "send").recipients).toMatchObject([
        { label: "bob", id: first.bob!.id, down: expect.any(String) },
      ]);
      // Nobody else takes the label while muster.toml names it.
      const taken = await muster(["join", "bob", "--id", "someone-else"]);
      expect(taken.status).toBe(1);
      expect(taken.stderr).toMatch(/label "bob" is kept for a declared member that is down/);
      expect(members().bob).toBeUndefined();
      // Back under the same member id: the mail is there, and wakes it (pi is prompted with it).
      const up = await muster(["up", "bob", "--json"]);
      expect(up.stderr).toBe("");
      expect(document(up, "up").members).toMatchObject([{ label: "bob", id: first.bob!.id }]);
      await eventually(
        () => {
          const file = piSession(first.bob!.session);
          return file ? readFileSync(file, "utf8") : "";
        },
        (text) => text.includes(body) && text.includes("and the changelog"),
        "bob woken by the mail that waited",
        { attempts: 200, intervalMs: 100 },
      );
    },
    60_000,
  );
  it.skipIf(!LONG_TESTS)(
    "up --here opens the member beside the caller's pane, not in the team's window",
    async () => {
      expect((await muster(["down", "alice"])).status).toBe(0);
      const out = path.join(scratch, "here.json");
      const exports = Object.entries(env)
        .map(([name, value]) => `${name}='${value}'`)
        .join(" ");
      // A shell in a pane of its own window, as a person runs it.
      const caller = tmux(
        "new-window",
        "-d",
        "-n",
        "caller",
        "-c",
        repo,
        "-P",
        "-F",
        "#{pane_id}",
        `env ${exports} '${process.execPath}' '${MUSTER}' up alice --here --json > '${out}'; sleep 60`,
      ).trim();
      const answer = await eventually(
        () => (existsSync(out) ? readFileSync(out, "utf8") : ""),
        (text) => text.endsWith("\n"),
        "up --here to answer",
        { attempts: 300, intervalMs: 100 },
      );
      const parsed = JSON.parse(answer);
      expect(parsed.window).toBeNull();
      expect(parsed.members).toMatchObject([{ label: "alice", outcome: "resumed" }]);
      const beside = tmux("list-panes", "-t", caller, "-F", "#{pane_id}").trim().split("\n");
      expect(beside.sort()).toEqual([caller, parsed.members[0].pane].sort());
    },
    60_000,
  );
});
