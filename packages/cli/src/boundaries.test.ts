// Hostile text in, no raw control byte out: every human output path of the built `muster` binary
// gets text another process wrote (a message body, an --agent name, a planted record, a file name,
// a pane's working directory, a socket path) and must show it visibly, while --json stays exact.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { assertPrivateSocket, eventually, startPrivateTmux, tmuxEnv } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-boundaries-")));
const NOWHERE = ["-L", "muster-test-000000000000"];
const ESC = "\u001b";
const BEL = "\u0007";
/** What an attacker writes: a clipboard write, a title, a clear screen, an 8-bit CSI, an RLO. */
const HOSTILE = `${ESC}]52;c;cm0gLXJmIH4=${BEL}${ESC}]0;pwned${BEL}${ESC}[2J\u009b31m\u202Egnp.exe`;
/** Any byte a terminal acts on (tab and newline aside, which bodies and tables legitimately hold). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these bytes
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

type Run = { status: number | null; stdout: string; stderr: string };
let teams = 0;
const newTeam = () => {
  teams += 1;
  return path.join(scratch, `team-${teams}`);
};

function muster(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string } = {},
): Promise<Run> {
  const chooses = args.includes("-L") || args.includes("-S");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MUSTER, ...args, ...(chooses ? [] : NOWHERE)], {
      cwd: scratch,
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

/** Neither stream carries a raw control byte. */
function expectClean(run: Run) {
  expect(run.stdout).not.toMatch(RAW);
  expect(run.stderr).not.toMatch(RAW);
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("mail, members and records", () => {
  const team = newTeam();
  const env = { MUSTER_TEAM_DIR: team };

  beforeAll(async () => {
    expect(
      (await muster(["join", "alice", "--id", "a1", "--agent", HOSTILE], { env })).status,
    ).toBe(0);
    expect((await muster(["join", "bob", "--id", "b1"], { env })).status).toBe(0);
    const sent = await muster(["send", "bob", "--id", "a1"], {
      env,
      input: `first line\n\tindented ${HOSTILE}\nlast line\n`,
    });
    expect(sent.status).toBe(0);
  });

  it("inbox shows a hostile body visibly, keeping its lines; --json keeps it exact", async () => {
    const human = await muster(["inbox", "--id", "b1", "--peek"], { env });
    expect(human.status).toBe(0);
    expectClean(human);
    expect(human.stdout).toContain("\\x1b]52;c;cm0gLXJmIH4=\\x07");
    expect(human.stdout).toContain("\\x9b31m\\u202egnp.exe");
    expect(human.stdout).toContain("  first line\n  \tindented");
    const json = await muster(["inbox", "--id", "b1", "--peek", "--json"], { env });
    expect(JSON.parse(json.stdout).messages[0].body).toBe(
      `first line\n\tindented ${HOSTILE}\nlast line`,
    );
  });

  it("roster and status show a hostile agent name visibly; roster --json is exact", async () => {
    for (const args of [["roster"], ["status"]]) {
      const run = await muster(args, { env });
      expect(run.status).toBe(0);
      expectClean(run);
      expect(run.stdout).toContain("\\x1b]0;pwned\\x07");
    }
    const json = JSON.parse((await muster(["roster", "--json"], { env })).stdout);
    expect(json.members.find((member: { id: string }) => member.id === "a1").agent).toBe(HOSTILE);
  });

  it("a refusal that quotes a hostile name or label is one clean line", async () => {
    for (const args of [
      ["join", "alice", "--id", "c1"],
      ["send", HOSTILE, "hi", "--id", "a1"],
      ["inbox", "--label", HOSTILE],
    ]) {
      const run = await muster(args, { env });
      expect(run.status).toBe(1);
      expectClean(run);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  it("a planted record whose label join would refuse is reported, not shown", async () => {
    const planted = newTeam();
    const plantedEnv = { MUSTER_TEAM_DIR: planted };
    expect((await muster(["join", "carol", "--id", "c1"], { env: plantedEnv })).status).toBe(0);
    const now = new Date().toISOString();
    writeFileSync(
      path.join(planted, "sessions", "evil.json"),
      JSON.stringify({
        v: 1,
        id: "evil",
        label: HOSTILE,
        agent: "pi",
        pid: process.pid,
        liveness: "heartbeat",
        watching: { armed: true, wake: false },
        joinedAt: now,
        heartbeatAt: now,
      }),
      { mode: 0o600 },
    );
    writeFileSync(path.join(planted, "sessions", `x${ESC}[2J.txt`), "junk", { mode: 0o600 });
    const human = await muster(["roster"], { env: plantedEnv });
    expect(human.status).toBe(0);
    expectClean(human);
    expect(human.stdout).toContain("carol");
    expect(human.stdout).not.toContain("pwned");
    expect(human.stderr).toMatch(/sessions\/evil\.json .*label.*not shown/);
    expect(human.stderr).toContain("x\\x1b[2J.txt");
    const json = JSON.parse((await muster(["roster", "--json"], { env: plantedEnv })).stdout);
    expect(json.members.map((member: { id: string }) => member.id)).toEqual(["c1"]);
    expect(json.warnings.join("\n")).toMatch(/sessions\/evil\.json/);
  });
});

describe("on a tmux server whose socket path and panes are hostile", () => {
  const team = newTeam();
  const env = { MUSTER_TEAM_DIR: team };
  const folder = path.join(scratch, `sock${ESC}]0;pwned${BEL}`);
  const socket = path.join(folder, `muster-test-${randomBytes(6).toString("hex")}`);
  const cwd = path.join(scratch, `work ${ESC}]8;;evil.example${ESC}\\dir`);
  const tmux = (...args: string[]) => {
    const full = ["-S", socket, "-f", "/dev/null", ...args];
    assertPrivateSocket(full);
    return execFileSync("tmux", full, { env: tmuxEnv(), encoding: "utf8" });
  };

  beforeAll(() => {
    mkdirSync(folder);
    mkdirSync(cwd);
    const agent = path.join(scratch, "fakes", "node_modules", "@anthropic-ai", "claude-code");
    mkdirSync(agent, { recursive: true });
    writeFileSync(path.join(agent, "cli.js"), "setInterval(() => {}, 1 << 30);\n");
    tmux("new-session", "-d", "-s", "main", "-c", cwd, `${process.execPath} ${agent}/cli.js`);
  });
  afterAll(() => {
    try {
      tmux("kill-server");
    } catch {
      // already gone
    }
  });

  it("agents, status, seat and doctor show the cwd and socket visibly", async () => {
    const agents = await eventually(
      () => muster(["agents", "-S", socket], { env }),
      (run) => run.stdout.includes("claude"),
      "the fake claude",
    );
    expectClean(agents);
    expect(agents.stdout).toContain("\\x1b]8;;evil.example");
    const pane = tmux("display-message", "-p", "-t", "main", "#{pane_id}").trim();
    for (const args of [["status"], ["seat", "--pane", pane], ["doctor"]]) {
      const run = await muster([...args, "-S", socket], { env });
      expectClean(run);
      expect(`${run.stdout}${run.stderr}`).toMatch(/sock\\x1b\]0;pwned\\x07/);
    }
    const json = JSON.parse((await muster(["agents", "--json", "-S", socket], { env })).stdout);
    expect(json.agents[0].cwd).toBe(cwd);
    expect(json.tmux.server).toBe(socket);
  });
});

describe("failed writes lose nothing", () => {
  it("inbox > /dev/full: one line on stderr, exit 1, and the mail stays unread", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    await muster(["join", "alice", "--id", "a1"], { env });
    await muster(["join", "bob", "--id", "b1"], { env });
    expect((await muster(["send", "bob", "keep me", "--id", "a1"], { env })).status).toBe(0);
    for (const json of [[], ["--json"]]) {
      const full = openSync("/dev/full", "w");
      const result = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [MUSTER, "inbox", "--id", "b1", ...json, ...NOWHERE],
          {
            cwd: scratch,
            env: tmuxEnv({ HOME: scratch, ...env }),
            stdio: ["ignore", full, "pipe"],
          },
        );
        let stderr = "";
        child.stderr!.on("data", (chunk) => {
          stderr += chunk;
        });
        child.once("close", (status) => resolve({ status, stderr }));
      });
      closeSync(full);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/^muster: .*ENOSPC.*stays unread/);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
    }
    const unread = JSON.parse((await muster(["inbox", "--id", "b1", "--json"], { env })).stdout);
    expect(unread.messages.map((message: { body: string }) => message.body)).toEqual(["keep me"]);
  });

  it("roster > /dev/full says so and exits 1, without a stack trace", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    await muster(["join", "alice", "--id", "a1"], { env });
    const full = openSync("/dev/full", "w");
    const result = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [MUSTER, "roster"], {
        cwd: scratch,
        env: tmuxEnv({ HOME: scratch, ...env }),
        stdio: ["ignore", full, "pipe"],
      });
      let stderr = "";
      child.stderr!.on("data", (chunk) => {
        stderr += chunk;
      });
      child.once("close", (status) => resolve({ status, stderr }));
    });
    closeSync(full);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^muster: cannot write the output .*ENOSPC/);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("status --watch | head: a closed output ends it quietly", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    const child = spawn(process.execPath, [MUSTER, "status", "--watch", ...NOWHERE], {
      cwd: scratch,
      env: tmuxEnv({ HOME: scratch, ...env }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    // Read the first frame, then close the pipe as head does.
    await new Promise((resolve) => child.stdout.once("data", resolve));
    child.stdout.destroy();
    const status = await new Promise((resolve) => child.once("close", resolve));
    expect(stderr).toBe("");
    expect(status).toBe(0);
  }, 20_000);
});

describe("servers that hang or are not there", () => {
  it("status with tmux stopped (SIGSTOP) shows the members and says tmux did not answer", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam(), MUSTER_TMUX_TIMEOUT_MS: "1000" };
    expect((await muster(["join", "alice", "--id", "a1"], { env })).status).toBe(0);
    const stopped = startPrivateTmux({ command: "sleep 600" });
    const pid = Number(stopped.tmux("display-message", "-p", "#{pid}").trim());
    process.kill(pid, "SIGSTOP");
    try {
      const status = await muster(["status", "-L", stopped.name], { env });
      expect(status.status).toBe(0);
      expect(status.stdout).toMatch(/Members \(1\)/);
      expect(status.stdout).toMatch(/alice/);
      expect(status.stdout).toContain(
        `the tmux server named "${stopped.name}" did not answer in 1 s; it may be stopped or hung`,
      );
      expect(status.stdout).not.toMatch(/signal/);
      const json = JSON.parse(
        (await muster(["status", "--json", "-L", stopped.name], { env })).stdout,
      );
      expect(json.members).toHaveLength(1);
      expect(json.tmux).toMatchObject({
        available: false,
        note: expect.stringMatching(/did not answer in 1 s/),
      });
    } finally {
      process.kill(pid, "SIGCONT");
      stopped.kill();
    }
  }, 20_000);

  it("errors name the server the user named, once, with the fix", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    const name = "muster-test-00000000dead";
    const status = await muster(["status", "-L", name], { env });
    expect(status.stdout).toContain(
      `the tmux server named "${name}" is not running; start it with tmux -L ${name}`,
    );
    for (const args of [["seat"], ["seat", "--pane", "%99"], ["seat", "--codex-thread", "abc"]]) {
      const run = await muster([...args, "-L", name], { env });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(
          `^muster: the tmux server named "${name}" is not running; start it with tmux -L ${name}, or `,
        ),
      );
      expect(run.stderr.match(/not running/g)).toHaveLength(1);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    }
  });
});

describe("a Codex thread id in a title is a hint, not an identity", () => {
  const thread = "01a22ae4-26be-7480-acf3-78282c9e1f0d";
  const title = `repo | ${thread.slice(0, 29)}...`;
  const server = () => startPrivateTmux({ command: "sleep 600" });

  it("seat --codex-thread refuses a pane that only shows the title, and answers the one running Codex", async () => {
    const tmux = server();
    try {
      const forged = tmux
        .tmux(
          "new-window",
          "-d",
          "-P",
          "-F",
          "#{pane_id}",
          "-t",
          "main",
          `printf '\\033]0;${title}\\007'; exec sleep 600`,
        )
        .trim();
      await eventually(
        () => tmux.tmux("display-message", "-p", "-t", forged, "#{pane_title}"),
        (text) => text.includes(thread.slice(0, 29)),
        "the forged title",
      );
      const refused = await muster(["seat", "--codex-thread", thread, "--json", "-L", tmux.name]);
      expect(refused.status).toBe(1);
      expect(JSON.parse(refused.stdout)).toMatchObject({
        ok: false,
        reason: "not-codex",
        candidates: [forged],
      });
      expect(refused.stderr).toMatch(/no Codex process runs there; a pane title is only a hint/);
      const codex = path.join(
        scratch,
        "fakes",
        "node_modules",
        "@openai",
        "codex",
        "bin",
        "codex.js",
      );
      mkdirSync(path.dirname(codex), { recursive: true });
      writeFileSync(
        codex,
        `process.stdout.write("\\u001b]0;${title}\\u0007");\nsetInterval(() => {}, 1 << 30);\n`,
      );
      const real = tmux
        .tmux(
          "new-window",
          "-d",
          "-P",
          "-F",
          "#{pane_id}",
          "-t",
          "main",
          `${process.execPath} ${codex}`,
        )
        .trim();
      const answered = await eventually(
        () => muster(["seat", "--codex-thread", thread, "--json", "-L", tmux.name]),
        (run) => run.status === 0,
        "the seat of the real Codex",
      );
      expect(JSON.parse(answered.stdout)).toMatchObject({ pane: real });
    } finally {
      tmux.kill();
    }
  });
});
