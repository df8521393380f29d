// The CLI fits people's habits: global options anywhere, -v, one not-member refusal, mail with
// several recipients, replies and threads, watch as NDJSON, and a team outside git said so.
// The built `muster` binary as a child process; no tmux server (a name that does not exist).
// The watch, as NDJSON and as text, waits out changes (~6 s and ~2 s): `pnpm test:long`
// (MUSTER_LONG_TESTS), which CI runs.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LONG_TESTS, lineQueue, tmuxEnv } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { joinedTeam } from "../test/run.js";
import { threads } from "./_history.js";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-habits-")));
const NOWHERE = ["-L", "muster-test-000000000000"];
let teams = 0;
const newTeam = () => {
  teams += 1;
  return path.join(scratch, `team-${teams}`);
};
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Run = { status: number | null; stdout: string; stderr: string };
function muster(
  args: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MUSTER, ...args], {
      cwd: options.cwd ?? scratch,
      env: tmuxEnv({ HOME: scratch, MUSTER_TEAM_DIR: undefined, ...options.env }),
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

describe.concurrent("global options go anywhere, as in tmux and git", () => {
  it.each([
    [["-L", "muster-test-000000000000", "agents", "--json"]],
    [["--json", "-L", "muster-test-000000000000", "agents"]],
    [["agents", "-L", "muster-test-000000000000", "--json"]],
  ])("%j", async (args) => {
    const result = await muster(args);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, tmux: { available: false } });
  });

  it("--team-dir before the command chooses the team folder", async () => {
    const dir = newTeam();
    expect((await muster(["--team-dir", dir, "join", "alice", "--id", "a1"])).status).toBe(0);
    const roster = await muster(["--team-dir", dir, "--json", "roster"]);
    expect(JSON.parse(roster.stdout)).toMatchObject({ ok: true, members: [{ label: "alice" }] });
  });

  it("a command's own option before the command is not taken for its name", async () => {
    const dir = newTeam();
    const result = await muster(["--id", "a1", "--team-dir", dir, "join", "alice", "--json"]);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, id: "a1", label: "alice" });
  });

  it.each([[["-v"]], [["--version"]], [["roster", "-v"]], [["-V"]]])(
    "%j prints the version",
    async (args) => {
      const result = await muster(args);
      expect(result).toMatchObject({ status: 0, stderr: "" });
      expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    },
  );
});

describe.concurrent("mail", () => {
  // Joined in this process as `join`, `join --wake` and `join --no-listen` would (the CLI's join
  // and its options have tests of their own): four CLI starts fewer per test.
  const setUp = async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    await joinedTeam(env.MUSTER_TEAM_DIR, {
      alice: "a1",
      bob: { id: "b1", mail: "wakes" },
      carol: { id: "c1", mail: "off" },
      Dave: "d1",
    });
    return env;
  };

  it("send to several labels reports per recipient how the mail reaches them, in the roster's case", async () => {
    const env = await setUp();
    const sent = await muster(["send", "BOB,carol,dave", "standup", "--id", "a1", "--json"], {
      env,
    });
    expect(sent.status).toBe(0);
    const receipt = JSON.parse(sent.stdout);
    expect(receipt).toMatchObject({
      ok: true,
      to: ["bob", "carol", "Dave"],
      recipients: [
        { id: "b1", label: "bob", duplicate: false, reach: "wakes" },
        { id: "c1", label: "carol", duplicate: false, reach: "not-pushed" },
        { id: "d1", label: "Dave", duplicate: false, reach: "next-turn" },
      ],
    });
    // Core's word, as team_send says it; `push`, its older name, stays the same value for scripts.
    for (const recipient of receipt.recipients) expect(recipient.push).toBe(recipient.reach);
    // One message id for all, and the address each mailbox holds is the label as held.
    const inbox = JSON.parse((await muster(["inbox", "--id", "d1", "--json"], { env })).stdout);
    expect(inbox.messages).toEqual([
      expect.objectContaining({ id: receipt.id, to: "Dave", body: "standup" }),
    ]);
    const human = await muster(["send", "bob,carol", "again", "--id", "a1"], { env });
    expect(human.stdout).toMatch(
      /^Sent \S+:\n {2}bob: will see it now \(it wakes them\)\n {2}carol: will see it only when they read their inbox\n$/,
    );
  });

  it("a label nobody holds among several sends nothing at all", async () => {
    const env = await setUp();
    const sent = await muster(["send", "bob,nobody", "hi", "--id", "a1"], { env });
    expect(sent.status).toBe(1);
    expect(sent.stderr).toMatch(/nobody holds the label "nobody"; nothing was sent/);
    const inbox = JSON.parse((await muster(["inbox", "--id", "b1", "--json"], { env })).stdout);
    expect(inbox.messages).toEqual([]);
  });

  it("--reply-to threads; inbox --all shows read mail too, newest thread last, replies under", async () => {
    const env = await setUp();
    const send = async (to: string, body: string, from: string, extra: string[] = []) =>
      JSON.parse(
        (await muster(["send", to, body, "--id", from, "--json", ...extra], { env })).stdout,
      ).id as string;
    const question = await send("bob", "which branch?", "a1");
    const other = await send("bob", "lunch?", "d1");
    expect((await muster(["inbox", "--id", "b1"], { env })).stdout).toMatch(/which branch\?/);
    const followUp = await send("all", "rebase first", "a1", ["--reply-to", question]);
    const all = await muster(["inbox", "--all", "--id", "b1", "--peek", "--json"], { env });
    expect(JSON.parse(all.stdout).messages).toEqual([
      expect.objectContaining({ id: other, read: true, depth: 0, thread: other }),
      expect.objectContaining({ id: question, read: true, depth: 0, thread: question }),
      expect.objectContaining({ id: followUp, read: false, depth: 1, thread: question }),
    ]);
    const human = await muster(["inbox", "--all", "--id", "b1"], { env });
    expect(human.stdout).toMatch(
      /lunch\?\n.* alice → bob .*\n {2}which branch\?\n {4}↳ new .* alice → all .*\n {6}rebase first\n$/,
    );
    // --all marked what was new as read, and --peek did not.
    expect(JSON.parse((await muster(["inbox", "--id", "b1", "--json"], { env })).stdout)).toEqual({
      ok: true,
      id: "b1",
      messages: [],
    });
    // A reply to mail this mailbox never held starts a thread, and says what it answers.
    const answer = await send("alice", "main", "b1", ["--reply-to", question]);
    const alice = await muster(["inbox", "-a", "--id", "a1"], { env });
    expect(alice.stdout).toContain(`${answer} (reply to ${question})`);
  });

  it("threads: a reply goes under what it answers; loops and self-replies still show each once", () => {
    const message = (id: string, sentAt: string, replyTo?: string) => ({
      v: 1 as const,
      id,
      from: { id: "x", label: "x" },
      to: "y",
      body: id,
      urgent: false,
      hops: 0,
      sentAt,
      read: true,
      replyTo,
    });
    const lines = threads([
      message("root", "2026-01-01T00:00:01Z"),
      message("loop-a", "2026-01-01T00:00:02Z", "loop-b"),
      message("loop-b", "2026-01-01T00:00:03Z", "loop-a"),
      message("self", "2026-01-01T00:00:04Z", "self"),
      message("reply", "2026-01-01T00:00:05Z", "root"),
      message("orphan", "2026-01-01T00:00:00Z", "gone"),
    ]);
    expect(lines.map((line) => `${line.message.id}:${line.depth}`)).toEqual([
      "orphan:0",
      "loop-a:0",
      "loop-b:1",
      "self:0",
      "root:0",
      "reply:1",
    ]);
  });
});

describe.concurrent("one not-member refusal, with its fix", () => {
  it.each([
    [["inbox", "--id", "stranger"]],
    [["inbox", "--id", "stranger", "--all"]],
    [["heartbeat", "--id", "stranger"]],
    [["leave", "--id", "stranger"]],
  ])("%j", async (args) => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    await joinedTeam(env.MUSTER_TEAM_DIR, { alice: "a1" });
    const human = await muster(args, { env });
    expect(human.status).toBe(1);
    expect(human.stderr).toBe(
      'muster: member id "stranger" is not on the team; join first with muster join <label>, or pass an id from muster roster --json\n',
    );
    const json = await muster([...args, "--json"], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, reason: "not-member" });
  });

  it("someone who left still reads what waits for them", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    await joinedTeam(env.MUSTER_TEAM_DIR, { alice: "a1", bob: "b1" });
    await muster(["send", "bob", "before you go", "--id", "a1"], { env });
    expect((await muster(["leave", "--id", "b1"], { env })).status).toBe(0);
    const inbox = await muster(["inbox", "--id", "b1"], { env });
    expect(inbox).toMatchObject({ status: 0 });
    expect(inbox.stdout).toMatch(/before you go/);
  });
});

describe("a team outside git", () => {
  const folder = path.join(scratch, "no-git");
  mkdirSync(folder, { recursive: true });
  const env = { MUSTER_HOME: path.join(scratch, "state") };

  it("status says the team is this folder's, and how to share one", async () => {
    const human = await muster(["status", ...NOWHERE], { env, cwd: folder });
    expect(human.stdout.split("\n")[1]).toBe(
      "  not in a git repository: the team is this folder's; set MUSTER_TEAM_DIR to share",
    );
    const json = JSON.parse(
      (await muster(["status", "--json", ...NOWHERE], { env, cwd: folder })).stdout,
    );
    expect(json.team).toMatchObject({
      source: "cwd",
      note: expect.stringMatching(/^not in a git/),
    });
    const named = await muster(["status", "--json", ...NOWHERE], {
      env: { ...env, MUSTER_TEAM_DIR: newTeam() },
      cwd: folder,
    });
    expect(JSON.parse(named.stdout).team.note).toBeNull();
  });

  it("doctor says so too", async () => {
    const doctor = await muster(["doctor", ...NOWHERE], { env, cwd: folder });
    expect(doctor.stdout).toMatch(
      /^! team: not in a git repository: the team is this folder's; set MUSTER_TEAM_DIR to share$/m,
    );
  });
});

describe("status --watch --json", () => {
  it.skipIf(!LONG_TESTS)(
    "prints one JSON document per change, one per line, each with ok, and stops on SIGTERM",
    async () => {
      const team = newTeam();
      const child = spawn(process.execPath, [MUSTER, "status", "--watch", "--json", ...NOWHERE], {
        cwd: scratch,
        env: tmuxEnv({ HOME: scratch, MUSTER_TEAM_DIR: team }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      const lines = lineQueue(child.stdout);
      const first = JSON.parse(await lines.next());
      // What `status --json` prints: the members, tmux, the leases and the cards in progress.
      expect(first).toMatchObject({ ok: true, members: [], tmux: { available: false } });
      expect(first).toHaveProperty("leases");
      expect(first).toHaveProperty("board.held", []);
      // Two refreshes with nothing changed print nothing: the next line is the join's change.
      await new Promise((resolve) => setTimeout(resolve, 4500));
      const joined = await muster(["join", "alice", "--id", "a1", ...NOWHERE], {
        env: { MUSTER_TEAM_DIR: team },
      });
      expect(joined.status).toBe(0);
      const second = JSON.parse(await lines.next());
      expect(second).toMatchObject({ ok: true, members: [{ label: "alice" }] });
      const exited = new Promise((resolve) => child.once("close", resolve));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    },
    30_000,
  );

  it.skipIf(!LONG_TESTS)(
    "without a terminal or --json prints the status text at each change, no escapes",
    async () => {
      const team = newTeam();
      const child = spawn(process.execPath, [MUSTER, "status", "--watch", ...NOWHERE], {
        cwd: scratch,
        env: tmuxEnv({ HOME: scratch, MUSTER_TEAM_DIR: team }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (chunk) => {
        out += chunk;
      });
      const until = async (accept: () => boolean) => {
        for (let tries = 0; tries < 200 && !accept(); tries += 1)
          await new Promise((resolve) => setTimeout(resolve, 50));
      };
      await until(() => out.includes("Members (0)"));
      const joined = await muster(["join", "bob", "--id", "b1", ...NOWHERE], {
        env: { MUSTER_TEAM_DIR: team },
      });
      expect(joined.status).toBe(0);
      await until(() => out.includes("Members (1)"));
      const exited = new Promise((resolve) => child.once("close", resolve));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(out.match(/Members \(0\)/g)).toHaveLength(1);
      expect(out).toMatch(/Members \(1\)\n {2}LABEL/);
      expect(out.includes("\u001b")).toBe(false);
    },
    30_000,
  );
});
