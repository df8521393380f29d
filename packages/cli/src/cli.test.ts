// End to end: the built `muster` binary as a child process, against a private tmux server with
// agent-like processes in its panes and a team folder in a temporary directory.
import { type ChildProcess, spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually, type PrivateTmux, startPrivateTmux, tmuxEnv } from "@muster/test-support";
import { writeSpawnRecord } from "@muster/wiring";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { joinedTeam } from "../test/run.ts";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-cli-")));
let teams = 0;
const children = new Set<ChildProcess>();

type Run = { status: number | null; stdout: string; stderr: string };

/** No tmux server that exists: a command that looks at tmux never reaches the user's default one. */
const ESC = String.fromCharCode(27);
const NOWHERE = ["-L", "muster-test-000000000000"];

function muster(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {},
): Promise<Run> {
  const chooses =
    args.includes("-L") ||
    args.includes("-S") ||
    ["help", "--help", "--version"].includes(args[0] ?? "");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MUSTER, ...args, ...(chooses ? [] : NOWHERE)], {
      cwd: options.cwd ?? scratch,
      env: tmuxEnv({ HOME: scratch, ...options.env }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdin.end(options.input ?? "");
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const newTeam = () => {
  teams += 1;
  return path.join(scratch, `team-${teams}`);
};

/** A file laid out like an installed agent, that idles (or first runs `command` in a shell). */
function fakeAgent(relative: string, command?: string) {
  const file = path.join(scratch, "fakes", relative);
  mkdirSync(path.dirname(file), { recursive: true });
  const body = command
    ? `require("node:child_process").execSync(${JSON.stringify(command)}, { stdio: "inherit", shell: "/bin/sh" });\nsetInterval(() => {}, 1 << 30);\n`
    : "setInterval(() => {}, 1 << 30);\n";
  writeFileSync(file, body);
  return file;
}

let server: PrivateTmux;
/** A new window on the private server running `command` (a real terminal); its pane id. */
const openPane = (command: string) =>
  server.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main", command).trim();
afterAll(() => {
  server?.kill();
  for (const child of children) child.kill("SIGKILL");
  rmSync(scratch, { recursive: true, force: true });
});

describe.concurrent("usage", () => {
  it.each([
    [["--help"], 0, /Usage: muster \[command\]/],
    [["help", "send"], 0, /Usage: muster send <label\[,label…\]\|all>/],
    [["help", "help"], 0, /Usage: muster \[command\]/],
    [["join", "--help"], 0, /--no-listen/],
    [["--version"], 0, /^\d+\.\d+\.\d+\n$/],
  ])("%j exits %i", async (args, status, pattern) => {
    const result = await muster(args);
    expect(result.status).toBe(status);
    expect(result.stdout).toMatch(pattern);
  });

  it.each([
    [["frobnicate"], /unknown command "frobnicate"/],
    [["constructor"], /unknown command "constructor"/],
    [["__proto__"], /unknown command "__proto__"/],
    [["help", "__proto__"], /unknown command "__proto__"/],
    [["roster", "--bogus"], /^muster roster: unknown option --bogus; see muster roster --help\n/],
    [["board", "-Z"], /^muster board: unknown option -Z; see muster board --help\n/],
    [["inbox", "--id"], /^muster inbox: --id takes a value; /],
    [["roster", "--all=yes"], /^muster roster: --all takes no value; see muster roster --help\n/],
    [
      ["send", "a", "--from", "--urgent"],
      /^muster send: --from takes a value; for one that starts with "-", write --from=VALUE;/,
    ],
    [["join"], /usage: muster join <label>/],
    [["join", "a", "b"], /usage: muster join <label>/],
    [["join", "a", "--wake", "--no-listen"], /contradict/],
    [["seat", "--pid", "abc"], /--pid takes a process id/],
    [["inbox", "--id", "a", "--label", "b"], /not both/],
    [["inbox", "--all", "--follow"], /not both/],
    [["send", "alice,", "hi", "--id", "a1"], /has an empty label/],
    [["install", "git-hook", "--dry-run"], /install git-hook takes no --dry-run/],
    [["install", "git-hook", "--project"], /install git-hook takes no --project/],
    [["install", "tmux", "--wake"], /install tmux takes no --wake/],
    [["install", "claude", "--from", "x"], /install claude takes no --from/],
  ])("%j is a usage error: exit 2, one line", async (args, pattern) => {
    const result = await muster(args, { env: { MUSTER_TEAM_DIR: newTeam() } });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(pattern);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stdout).toBe("");
  });

  it.each([
    [["spawn", "pi", "--timeout", "45s"]],
    [["spawn", "pi", "--timeout", "2m"]],
    [["up", "--timeout", "90s"]],
  ])("%j: --timeout takes a duration as send's does, not only seconds", async (args) => {
    const result = await muster(args, { env: { MUSTER_TEAM_DIR: newTeam() } });
    expect(result.stderr).not.toContain("--timeout");
    expect(result.status).toBe(1);
  });

  it.each([
    [["spawn", "pi", "--timeout", "5x"]],
    [["spawn", "pi", "--timeout", "0"]],
    [["up", "--timeout", "-1"]],
  ])("%j: a --timeout that is no duration is a usage error", async (args) => {
    const result = await muster(args, { env: { MUSTER_TEAM_DIR: newTeam() } });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--timeout takes/);
  });

  it.each([
    [["roster", "--bogus", "--json"], "unknown option --bogus"],
    [["frobnicate", "--json"], 'unknown command "frobnicate"'],
    [["join", "--json"], "usage: muster join <label>"],
    [["inbox", "--all", "--follow", "--json"], "pass --all or --follow, not both"],
  ])("%j with --json: the usage error is a document on stdout too", async (args, words) => {
    const result = await muster(args, { env: { MUSTER_TEAM_DIR: newTeam() } });
    expect(result.status).toBe(2);
    const document = JSON.parse(result.stdout);
    expect(document).toEqual({ ok: false, reason: "usage", error: result.stderr.trim() });
    expect(document.error).toContain(words);
  });

  it("up names the declared label a mistyped one meant, and says when there is no muster.toml", async () => {
    const repo = path.join(scratch, `up-repo-${teams}`);
    mkdirSync(repo, { recursive: true });
    await new Promise((resolve) => spawn("git", ["init", "-q", repo]).once("close", resolve));
    const env = { MUSTER_TEAM_DIR: newTeam() };
    const bare = await muster(["up"], { env, cwd: repo });
    expect(bare.status).toBe(1);
    expect(bare.stderr).toMatch(/^muster: there is no muster\.toml in [^\n]*; [^\n]*\n$/);
    writeFileSync(path.join(repo, "muster.toml"), '[[member]]\nlabel = "alice"\nengine = "pi"\n');
    const typo = await muster(["up", "alic"], { env, cwd: repo });
    expect(typo.status).toBe(1);
    expect(typo.stderr).toMatch(/^muster: [^\n]*"?alic"?[^\n]*; did you mean "alice"\? [^\n]*\n$/);
  });

  it("send --from a mistyped label says which live label it meant", async () => {
    const teamDir = newTeam();
    await joinedTeam(teamDir, { alice: "alice-id", bob: "bob-id" });
    const sent = await muster(["send", "bob", "hi", "--from", "alcie"], {
      env: { MUSTER_TEAM_DIR: teamDir },
    });
    expect(sent.status).toBe(1);
    expect(sent.stderr).toMatch(
      /^muster: no live member holds the label "alcie"; did you mean "alice"\? /,
    );
  });

  it("stop names the spawned label a mistyped one meant", async () => {
    const teamDir = newTeam();
    mkdirSync(teamDir, { recursive: true, mode: 0o700 });
    await writeSpawnRecord(
      { dir: teamDir },
      {
        v: 1,
        label: "alice",
        engine: "pi",
        server: "/tmp/none",
        serverPid: 1,
        pane: "%9",
        pid: 1,
        start: "0",
        cwd: scratch,
        by: { pane: "%0" },
        at: new Date().toISOString(),
      },
    );
    const typo = await muster(["stop", "alcie", "--json"], { env: { MUSTER_TEAM_DIR: teamDir } });
    expect(typo.status).toBe(1);
    expect(typo.stderr).toMatch(/^muster: [^\n]*"alcie"[^\n]*; did you mean "alice"\? [^\n]*\n$/);
    expect(JSON.parse(typo.stdout)).toMatchObject({ ok: false, suggestion: "alice" });
  });

  it("hook's usage names every event the hook takes", async () => {
    const refused = await muster(["hook", "claude", "bogus"]);
    expect(refused.status).toBe(2);
    const events = /one of ([a-z-]+(?:, [a-z-]+)*)/.exec(refused.stderr)?.[1]?.split(", ") ?? [];
    expect(events.length).toBeGreaterThan(5);
    const help = await muster(["hook", "--help"]);
    const usage = help.stdout.split("\n").find((line) => line.startsWith("Usage:")) ?? "";
    for (const event of events) expect(usage, event).toContain(event);
  });

  it("mcp --help names every tool the server serves", async () => {
    const { MCP_TOOLS } = await import("@muster/mcp");
    const result = await muster(["mcp", "--help"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`Tools (${MCP_TOOLS.length}):`);
    for (const tool of MCP_TOOLS) expect(result.stdout).toMatch(new RegExp(`\\b${tool.name}\\b`));
    expect(MCP_TOOLS.length).toBeGreaterThan(3);
  });
});

describe.concurrent("with no tmux server at all", () => {
  it("status says so in a line and exits 0; --json says available: false", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    const human = await muster([...NOWHERE], { env });
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/the tmux server named "muster-test-0+" is not running/);
    const json = await muster(["status", "--json", ...NOWHERE], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({
      tmux: { available: false, server: null },
      members: [],
      agents: [],
    });
  });
});

describe("against a private tmux server", () => {
  const team = newTeam();
  const env = () => ({ MUSTER_TEAM_DIR: team });
  let codexOut: string;

  beforeAll(() => {
    codexOut = path.join(scratch, "codex-join.json");
    const joiner = fakeAgent(
      "node_modules/@openai/codex/bin/codex.js",
      `${process.execPath} ${MUSTER} join coder --json -L NAME > ${codexOut} 2>&1`,
    );
    const claude = fakeAgent("node_modules/@anthropic-ai/claude-code/cli.js");
    const elsewhere = path.join(scratch, "elsewhere");
    mkdirSync(elsewhere);
    server = startPrivateTmux({
      command: "sleep 600",
      env: { MUSTER_TEAM_DIR: team, HOME: scratch },
    });
    // The joiner needs the server's name: write it into the fake now that we know it.
    writeFileSync(joiner, readFileSync(joiner, "utf8").replace("-L NAME", `-L ${server.name}`));
    server.tmux("new-window", "-d", "-t", "main", "-c", scratch, `${process.execPath} ${joiner}`);
    server.tmux("new-window", "-d", "-t", "main", "-c", elsewhere, `${process.execPath} ${claude}`);
  });

  it("agents --json lists each engine with its pane and cwd", async () => {
    const result = await eventually(
      () => muster(["agents", "--json", "-L", server.name], { env: env() }),
      (run) => run.status === 0 && JSON.parse(run.stdout).agents.length === 2,
      "two agents",
    );
    const document = JSON.parse(result.stdout);
    expect(document.tmux).toMatchObject({ available: true, server: server.socket });
    expect(document.agents.map((agent: { engine: string }) => agent.engine).sort()).toEqual([
      "claude",
      "codex",
    ]);
    for (const agent of document.agents) {
      expect(agent).toEqual({
        engine: expect.any(String),
        pid: expect.any(Number),
        pane: expect.stringMatching(/^%\d+$/),
        session: expect.stringMatching(/^\$\d+$/),
        sessionName: "main",
        cwd: expect.any(String),
        state: "live",
        label: expect.toBeOneOf([null, "coder"]),
        inRepository: true,
        spawned: null,
      });
    }
  });

  it("join from a shell whose ancestor is an agent-like process makes that agent the member", async () => {
    const joined = await eventually(
      () => {
        try {
          return JSON.parse(readFileSync(codexOut, "utf8"));
        } catch {
          return undefined;
        }
      },
      (value) => value !== undefined,
      "the fake codex to join",
    );
    const agents = JSON.parse(
      (await muster(["agents", "--json", "-L", server.name], { env: env() })).stdout,
    ).agents;
    const codex = agents.find((agent: { engine: string }) => agent.engine === "codex");
    expect(joined).toMatchObject({
      ok: true,
      label: "coder",
      agent: "codex",
      pid: codex.pid,
      seat: { pane: codex.pane, sessionName: "main" },
    });
    expect(joined.id).toBe(`codex-${codex.pid}-${joined.id.split("-").at(-1)}`);
    const roster = JSON.parse((await muster(["roster", "--json"], { env: env() })).stdout);
    expect(roster.members).toEqual([
      expect.objectContaining({
        label: "coder",
        agent: "codex",
        state: "live",
        pid: codex.pid,
        seat: expect.objectContaining({ pane: codex.pane }),
      }),
    ]);
    expect(roster.members[0]).toHaveProperty("heartbeatAgeMs");
    expect(roster.members[0]).toHaveProperty("unread", 0);
    expect(roster.members[0]).toHaveProperty("watching", { armed: true, wake: false });
  });

  it("status joins agents and members, and lists agents outside the repository apart", async () => {
    const repository = path.join(scratch, "repo");
    mkdirSync(repository, { recursive: true });
    const status = JSON.parse(
      (await muster(["status", "--json", "-L", server.name], { env: env(), cwd: scratch })).stdout,
    );
    expect(status.team.dir).toBe(team);
    expect(
      status.agents.find((agent: { engine: string }) => agent.engine === "codex"),
    ).toMatchObject({ label: "coder" });
    const human = await muster(["status", "-L", server.name], { env: env() });
    expect(human.stdout).toMatch(/Members \(1\)/);
    expect(human.stdout).toMatch(/coder\s+codex\s+starting/);
    expect(human.stdout.includes(ESC)).toBe(false);
  });

  it("an engine that never reports stays starting in every door, never idle or working", async () => {
    // The fake Codex joined and has sent no signal since (as a Codex at its sign-in screen).
    const utf8 = { ...env(), LANG: "C.UTF-8", LC_ALL: undefined, LC_CTYPE: undefined };
    const starting = { state: "starting", reason: "not-reported", signal: null };
    await eventually(
      () => muster(["roster", "--json"], { env: env() }),
      (run) => JSON.parse(run.stdout).members?.length === 1,
      "the fake codex to join",
    );
    const status = JSON.parse(
      (await muster(["status", "--json", "-L", server.name], { env: env() })).stdout,
    );
    expect(status.members).toEqual([
      expect.objectContaining({ label: "coder", activity: expect.objectContaining(starting) }),
    ]);
    const roster = JSON.parse((await muster(["roster", "--json"], { env: env() })).stdout);
    expect(roster.members[0].activity).toMatchObject(starting);
    expect((await muster(["status", "--line"], { env: utf8 })).stdout).toBe("⚑ 1 starting\n");
    // A later reading says the same: nothing the engine did not report is made up meanwhile.
    const again = JSON.parse((await muster(["roster", "--json"], { env: env() })).stdout);
    expect(again.members[0].activity).toMatchObject(starting);
    expect(again.members[0].activity.ageMs).toBeGreaterThan(roster.members[0].activity.ageMs);
  });

  it("status --watch is the dashboard on a terminal until Ctrl-C, then restores the screen and exits 0", async () => {
    const pane = openPane(
      `${process.execPath} ${MUSTER} status --watch -L ${server.name}; echo "exited $?"; sleep 30`,
    );
    const screen = () => server.tmux("capture-pane", "-p", "-t", pane);
    await eventually(
      screen,
      (text) => text.includes("q quit") && /%\d+\s+codex\s+coder/.test(text),
      "the watch screen",
    );
    server.tmux("send-keys", "-t", pane, "C-c");
    const after = await eventually(
      screen,
      (text) => text.includes("exited 0"),
      "the watch to stop",
    );
    // The alternate screen is gone: what was drawn there is not on the restored screen.
    expect(after).not.toContain("q quit");
    expect(server.tmux("display-message", "-p", "-t", pane, "#{alternate_on}").trim()).toBe("0");
  });

  it("NO_COLOR is honoured on a terminal, and colour is used without it", async () => {
    const capture = async (noColor: boolean) => {
      const window = openPane(
        `${noColor ? "NO_COLOR=1 " : ""}${process.execPath} ${MUSTER} roster; sleep 30`,
      );
      return eventually(
        () => server.tmux("capture-pane", "-p", "-e", "-t", window),
        (screen) => screen.includes("coder"),
        "muster roster on the terminal",
      );
    };
    expect((await capture(false)).includes(`${ESC}[`)).toBe(true);
    expect((await capture(true)).includes(`${ESC}[`)).toBe(false);
  });
});

describe.concurrent("membership and mail", () => {
  // One team where alice (a1) is alone, joined once, for the refusals: a refusal changes nothing,
  // so each finds the team as the others do.
  let alone: Promise<{ MUSTER_TEAM_DIR: string }> | undefined;
  const aliceAlone = () => {
    alone ??= (async () => {
      const env = { MUSTER_TEAM_DIR: newTeam() };
      await joinedTeam(env.MUSTER_TEAM_DIR, { alice: "a1" });
      return env;
    })();
    return alone;
  };

  it("MUSTER_MAIL sets a new member's mail mode; --no-listen and --wake still win; a bad value is refused", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam(), MUSTER_MAIL: "wakes" };
    const join = async (label: string, ...extra: string[]) =>
      muster(["join", label, "--id", `${label}-id`, "--json", ...extra], { env });
    expect(JSON.parse((await join("alice")).stdout).watching).toEqual({ armed: true, wake: true });
    expect(JSON.parse((await join("bob", "--no-listen")).stdout).watching).toEqual({
      armed: false,
      wake: false,
    });
    const bad = await muster(["join", "carol", "--id", "carol-id"], {
      env: { ...env, MUSTER_MAIL: "loud" },
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/MUSTER_MAIL is "loud".*off, quiet or wakes/);
  });

  it("a reply carries one hop more than the message it answers; a bad --reply-to writes nothing", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    await joinedTeam(env.MUSTER_TEAM_DIR, { alice: "a1", bob: "b1" });
    const inbox = async (id: string) =>
      JSON.parse((await muster(["inbox", "--id", id, "--json"], { env })).stdout).messages as {
        id: string;
        hops: number;
        replyTo?: string;
      }[];
    const send = (from: string, to: string, ...extra: string[]) =>
      muster(["send", to, "a message", "--id", from, "--json", ...extra], { env });
    expect((await send("a1", "bob")).status).toBe(0);
    const [first] = await inbox("b1");
    expect(first?.hops).toBe(0);
    expect((await send("b1", "alice", "--reply-to", first!.id)).status).toBe(0);
    const [reply] = await inbox("a1");
    expect(reply).toMatchObject({ hops: 1, replyTo: first!.id });
    // Replying by label finds the message in the label holder's own mailbox.
    await muster(["send", "bob", "again", "--from", "alice", "--reply-to", reply!.id], { env });
    expect((await inbox("b1"))[0]).toMatchObject({ hops: 2, replyTo: reply!.id });
    const refused = await send("a1", "bob", "--reply-to", "../../labels/bob");
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(/reply-to message id/);
    expect(await inbox("b1")).toEqual([]);
  });

  it("racing muster join processes: exactly one wins", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        muster(["join", "Lead", "--id", `racer-${index}`, ...NOWHERE], { env }),
      ),
    );
    expect(results.filter((result) => result.status === 0)).toHaveLength(1);
    for (const loser of results.filter((result) => result.status !== 0)) {
      expect(loser.status).toBe(1);
      expect(loser.stderr).toMatch(
        /^muster: Could not join as "Lead": label "Lead" is (held by a live|being claimed)/,
      );
      expect(loser.stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  it("send and inbox --follow between two members: delivered by the mailbox watch", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    await joinedTeam(env.MUSTER_TEAM_DIR, { alice: "a1", bob: { id: "b1", mail: "wakes" } });
    const follower = spawn(
      process.execPath,
      [MUSTER, "inbox", "--follow", "--json", "--label", "bob"],
      {
        env: tmuxEnv({ HOME: scratch, ...env }),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    children.add(follower);
    const lines: { line: string; at: number }[] = [];
    follower.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      for (const line of chunk.split("\n").filter(Boolean)) lines.push({ line, at: Date.now() });
    });
    // Ready when it watches its mailbox (an inotify descriptor in its fd table), not after a pause.
    const watches = () => {
      try {
        return readdirSync(`/proc/${follower.pid}/fd`).some((fd) => {
          try {
            return readlinkSync(`/proc/${follower.pid}/fd/${fd}`) === "anon_inode:inotify";
          } catch {
            return false;
          }
        });
      } catch {
        return false;
      }
    };
    await eventually(watches, (yes) => yes, "the follower to watch its mailbox", { attempts: 300 });
    const receipt = await muster(
      ["send", "bob", "please", "review", "#12", "--id", "a1", "--json"],
      { env },
    );
    expect(receipt.status).toBe(0);
    const document = JSON.parse(receipt.stdout);
    expect(document).toMatchObject({ id: expect.any(String), to: ["bob"] });
    const arrived = await eventually(
      () => lines,
      (seen) => seen.length > 0,
      "the followed message",
    );
    expect(JSON.parse(arrived[0]!.line)).toMatchObject({
      id: document.id,
      body: "please review #12",
      from: { label: "alice" },
    });
    // From the moment the message was written to the moment the follower printed it: the watch's
    // event, not the 2 s fallback sweep (a bound a loaded machine meets).
    expect(arrived[0]!.at - Date.parse(document.sentAt)).toBeLessThan(1500);
    // From stdin, to all; then the inbox is empty because the follower marked everything read.
    expect(
      (await muster(["send", "all", "--from", "bob"], { env, input: "line one\nline two\n" }))
        .status,
    ).toBe(0);
    const inbox = JSON.parse((await muster(["inbox", "--id", "a1", "--json"], { env })).stdout);
    expect(inbox.messages.map((message: { body: string }) => message.body)).toEqual([
      "line one\nline two",
    ]);
    expect(
      JSON.parse((await muster(["inbox", "--id", "a1", "--json"], { env })).stdout).messages,
    ).toEqual([]);
    follower.kill("SIGINT");
    await new Promise((resolve) => follower.once("close", resolve));
    expect(follower.exitCode).toBe(0);
  });

  it.each([
    [["send", "nobody", "hi", "--id", "a1"], /nobody holds the label "nobody"/],
    [["send", "alice", "", "--id", "a1"], /the message is empty/],
    [["join", "all"], /"all" is reserved for addressing/],
    [["join", "../x"], /is not a label/],
    [["inbox", "--label", "nobody"], /nobody on the team holds the label "nobody"/],
    [["seat", "--pane", "%999", ...NOWHERE], /tmux server named "muster-test-0+" is not running/],
    [["leave", "--id", "never-joined"], /not on the team/],
    [["leave", "--id", "never-joined", "--json"], /not on the team/],
    [
      ["heartbeat", "--id", "never-joined"],
      /^muster: member id "never-joined" is not on the team; join first with muster join <label>/,
    ],
    [
      ["inbox", "--id", "never-joined"],
      /^muster: member id "never-joined" is not on the team; join first with muster join <label>/,
    ],
    [
      ["send", "alice", "hi", "--from", "Ghost"],
      /^muster: no live member holds the label "Ghost"; join first with muster join <label>/,
    ],
    [
      ["send", "nobody,alice", "hi", "--id", "a1"],
      /nobody holds the label "nobody"; nothing was sent/,
    ],
    [["send", "ALICE", "note to self", "--id", "a1"], /^muster: "alice" is you; nothing was sent/],
    [["send", "alice", "note to self", "--from", "alice"], /"alice" is you; nothing was sent/],
  ])("%j is refused: exit 1, one line on stderr", async (args, pattern) => {
    const env = await aliceAlone();
    const result = await muster(args, { env });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(pattern);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("send - fed by an endless producer is refused at the limit, without reading the rest", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    await joinedTeam(env.MUSTER_TEAM_DIR, { alice: "a1", bob: "b1" });
    // Writes 1 MiB blocks for ever: a send that buffers its whole stdin never ends.
    const producer = spawn(
      process.execPath,
      [
        "-e",
        "const block = Buffer.alloc(1 << 20, 120); let sent = 0;" +
          "process.stdout.on('error', () => { process.stderr.write(String(sent)); process.exit(0); });" +
          "(function more() { while (process.stdout.write(block)) sent += block.length; sent += block.length; process.stdout.once('drain', more); })();",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    children.add(producer);
    // Listened for from the start: the producer can end before the send does.
    const producerClosed = new Promise((resolve) => producer.once("close", resolve));
    let written = "";
    producer.stderr.on("data", (chunk) => {
      written += chunk;
    });
    const send = spawn(process.execPath, [MUSTER, "send", "bob", "-", "--id", "a1", ...NOWHERE], {
      cwd: scratch,
      env: tmuxEnv({ HOME: scratch, ...env }),
      stdio: [producer.stdout, "pipe", "pipe"],
    });
    children.add(send);
    // The child holds the read end now; the producer learns it closed when the child closes it.
    producer.stdout.destroy();
    let stderr = "";
    send.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const status = await new Promise<number | null | "still reading">((resolve) => {
      const stuck = setTimeout(() => resolve("still reading"), 20_000);
      send.once("close", (code) => {
        clearTimeout(stuck);
        resolve(code);
      });
    });
    send.kill("SIGKILL");
    expect(status).toBe(1);
    expect(stderr).toMatch(/^muster: the message is over 65536 bytes; the limit is 65536/);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    // The producer learns the pipe closed: what it got written is bounded by pipe buffers.
    await producerClosed;
    expect(Number(written)).toBeLessThan(16 << 20);
    const inbox = JSON.parse((await muster(["inbox", "--id", "b1", "--json"], { env })).stdout);
    expect(inbox.messages).toEqual([]);
  }, 30_000);

  it("a refusal with --json is one JSON document on stdout too", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    const result = await muster(["inbox", "--id", "nobody", "--json"], { env });
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, reason: "not-member" });
  });

  it("a team folder writable by others is refused with the fix", async () => {
    const dir = newTeam();
    mkdirSync(dir, { mode: 0o777 });
    const { chmodSync } = await import("node:fs");
    chmodSync(dir, 0o777);
    const result = await muster(["roster"], { env: { MUSTER_TEAM_DIR: dir } });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/writable by group or others; run chmod 700/);
  });

  it("prune --json and doctor report what they did", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    const prune = await muster(["prune", "--json"], { env });
    expect(JSON.parse(prune.stdout)).toMatchObject({ ok: true, removed: [], cleared: [] });
    const doctor = await muster(["doctor", "--json", ...NOWHERE], { env });
    expect(doctor.status).toBe(1);
    const checks = JSON.parse(doctor.stdout).checks;
    expect(checks.find((check: { name: string }) => check.name === "tmux server")).toMatchObject({
      ok: false,
      fix: expect.stringMatching(/start it with tmux -L muster-test-0+/),
    });
    expect(checks.find((check: { name: string }) => check.name === "team folder")).toMatchObject({
      ok: true,
    });
  });
});
