// Hostile text in, no raw control byte out: every human output path of the built `muster` binary
// gets text another process wrote (a message body, an --agent name, a planted record, a file name,
// a pane's working directory, a socket path) and must show it visibly, while --json stays exact.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { assertPrivateSocket, eventually, tmuxEnv } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BEL, ESC, expectClean, HOSTILE, joinedTeam, musterKit } from "../test/run.ts";

const { scratch, newTeam, muster } = musterKit("muster-terminal-");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("mail, members and records", () => {
  const team = newTeam();
  const env = { MUSTER_TEAM_DIR: team };

  beforeAll(async () => {
    expect(
      (await muster(["join", "alice", "--id", "a1", "--agent", HOSTILE], { env })).status,
    ).toBe(0);
    await joinedTeam(team, { bob: "b1" });
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

  it("join's answer and usage errors that quote what was typed are clean", async () => {
    const joined = await muster(["join", "dave", "--id", "d1", "--agent", HOSTILE], { env });
    expect(joined.status).toBe(0);
    expectClean(joined);
    expect(joined.stdout).toContain("\\x1b]0;pwned\\x07");
    for (const args of [[HOSTILE], ["roster", `--${HOSTILE}`], ["seat", "--pid", HOSTILE]]) {
      const run = await muster(args, { env });
      expect(run.status).toBe(2);
      expectClean(run);
    }
  });

  it("a planted record whose label join would refuse is reported, not shown", async () => {
    const planted = newTeam();
    const plantedEnv = { MUSTER_TEAM_DIR: planted };
    await joinedTeam(planted, { carol: "c1" });
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

  it("a tab or newline in a pane's command or directory moves no field and fails nobody", async () => {
    const odd = path.join(scratch, "odd\tdir\nname");
    mkdirSync(odd);
    const forged = `x\tfake-session\t/tmp/fake.sock\t${scratch}`;
    tmux(
      "new-window",
      "-d",
      "-t",
      "main",
      "-c",
      odd,
      `exec bash -c "exec -a $'${forged.replaceAll("\t", "\\t")}' sleep 600"`,
    );
    tmux("new-window", "-d", "-t", "main", "-c", odd, `exec bash -c "exec -a $'a\\nb' sleep 601"`);
    const listed = await eventually(
      () => muster(["agents", "--json", "-S", socket], { env }),
      (run) => run.status === 0 && JSON.parse(run.stdout).agents.length === 1,
      "the agents beside the odd panes",
    );
    expect(JSON.parse(listed.stdout)).toMatchObject({ warnings: [], agents: [{ cwd }] });
    for (const args of [["status"], ["doctor"], ["agents"]]) {
      const run = await muster([...args, "-S", socket], { env });
      expectClean(run);
      expect(run.stderr).not.toMatch(/cannot read|skipped/);
    }
    const doctor = JSON.parse((await muster(["doctor", "--json", "-S", socket], { env })).stdout);
    expect(
      doctor.checks.find((check: { name: string }) => check.name === "tmux server"),
    ).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/, 3 pane\(s\)$/),
    });
  });
});
