// What fails around muster loses nothing and says one thing: a full disk or a closed pipe under
// its output, a tmux server that is stopped or missing, a pane title that names a Codex thread
// without a Codex in the pane. The closed pipe under the dashboard and the stopped tmux server sit
// out their bounds (~2 s each): `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS, startPrivateTmux, tmuxEnv } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { joinedTeam, MUSTER, musterKit, NOWHERE } from "../test/run.ts";

const { scratch, newTeam, muster } = musterKit("muster-failures-");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** muster with stdout on /dev/full: a write that fails with ENOSPC. */
async function toFullDisk(args: string[], env: Record<string, string>) {
  const full = openSync("/dev/full", "w");
  try {
    return await muster(args, { env, stdout: full });
  } finally {
    closeSync(full);
  }
}

describe("failed writes lose nothing", () => {
  it("inbox > /dev/full: one line on stderr, exit 1, and the mail stays unread", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    await joinedTeam(env.MUSTER_TEAM_DIR, { alice: "a1", bob: "b1" });
    expect((await muster(["send", "bob", "keep me", "--id", "a1"], { env })).status).toBe(0);
    for (const json of [[], ["--json"]]) {
      const result = await toFullDisk(["inbox", "--id", "b1", ...json], env);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/^muster: .*ENOSPC.*stays unread/);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
    }
    const unread = JSON.parse((await muster(["inbox", "--id", "b1", "--json"], { env })).stdout);
    expect(unread.messages.map((message: { body: string }) => message.body)).toEqual(["keep me"]);
  });

  it("send all with one mailbox unwritable: the rest get it, the receipt names who did not", async () => {
    const dir = newTeam();
    const env = { MUSTER_TEAM_DIR: dir };
    await joinedTeam(dir, { alice: "a1", bob: "b1", carol: "c1" });
    // Tests run as root, where chmod blocks nothing: a file where tmp/ should be is refused.
    rmSync(path.join(dir, "mail", "c1", "tmp"), { recursive: true });
    writeFileSync(path.join(dir, "mail", "c1", "tmp"), "not a folder");
    const json = await muster(["send", "all", "standup", "--id", "a1", "--json"], { env });
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      to: ["bob"],
      recipients: [{ id: "b1", label: "bob", duplicate: false }],
      refused: [{ id: "c1", label: "carol", reason: "unwritable" }],
    });
    const human = await muster(["send", "all", "again", "--id", "a1"], { env });
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/^ {2}bob: /m);
    expect(human.stdout).toMatch(
      /^ {2}carol: not delivered \(cannot write to the mailbox of "carol"/m,
    );
    const bob = JSON.parse((await muster(["inbox", "--id", "b1", "--json"], { env })).stdout);
    expect(bob.messages.map((message: { body: string }) => message.body)).toEqual([
      "standup",
      "again",
    ]);
    // Nothing written at all: refused, exit 1, one line.
    const alone = await muster(["send", "carol", "hi", "--id", "a1"], { env });
    expect(alone.status).toBe(1);
    expect(alone.stderr).toMatch(/^muster: cannot write to the mailbox of "carol"/);
    expect(alone.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("roster > /dev/full says so and exits 1, without a stack trace", async () => {
    const env = { MUSTER_TEAM_DIR: newTeam() };
    await joinedTeam(env.MUSTER_TEAM_DIR, { alice: "a1" });
    const result = await toFullDisk(["roster"], env);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^muster: cannot write the output .*ENOSPC/);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it.skipIf(!LONG_TESTS)(
    "status --watch | head: a closed output ends it quietly",
    async () => {
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
      // Read the first frame, then close the pipe as head does. Like tail -f, the watch learns of it
      // when it next writes: at the next change, a member joining.
      await new Promise((resolve) => child.stdout.once("data", resolve));
      child.stdout.destroy();
      expect((await muster(["join", "alice", "--id", "a1"], { env })).status).toBe(0);
      const status = await new Promise((resolve) => child.once("close", resolve));
      expect(stderr).toBe("");
      expect(status).toBe(0);
    },
    20_000,
  );
});

describe("servers that hang or are not there", () => {
  it.skipIf(!LONG_TESTS)(
    "status with tmux stopped (SIGSTOP) shows the members and says tmux did not answer",
    async () => {
      const env = { MUSTER_TEAM_DIR: newTeam(), MUSTER_TMUX_TIMEOUT_MS: "1000" };
      await joinedTeam(env.MUSTER_TEAM_DIR, { alice: "a1" });
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
    },
    20_000,
  );

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
