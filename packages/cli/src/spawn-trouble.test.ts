// `muster spawn` of an engine that cannot work: the README's own spawn line on a machine where pi
// has no model (a real pi 1.6.0, offline, in a throwaway HOME with no key) is a failure that quotes
// pi's own words and says how to give it one, leaving the pane for the person; an engine that dies
// at start keeps its last words in its pane. Run from a shell pane of a private tmux server.
import { spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  CLAUDE_VERSION,
  endCodexDaemons,
  LONG_TESTS,
  type PrivateTmux,
  startPrivateTmux,
  tmuxEnv,
} from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paneCaller } from "../test/pane-caller.js";
import { MUSTER } from "../test/run.js";
import { check, loadSchemas } from "../test/schema-check.js";

const PI_PACKAGE = path.resolve(import.meta.dirname, "..", "..", "pi-extension");
const PI_CLI = path.join(
  PI_PACKAGE,
  "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js",
);
const EXTENSION = path.join(PI_PACKAGE, "dist", "muster", "index.js");
const BIN = path.resolve(import.meta.dirname, "..", "node_modules", ".bin");
const schemas = loadSchemas();

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-spawn-trouble-")));
const home = path.join(scratch, "home");
const repo = path.join(scratch, "repo");
const team = path.join(scratch, "team");
let server: PrivateTmux;
const fromPane = paneCaller(() => server, scratch, repo);

/** `muster stop` from this test process (no pane needed). */
function stop(label: string): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MUSTER, "stop", label, "--json", "-L", server.name], {
      cwd: repo,
      env: tmuxEnv({ HOME: home, MUSTER_TEAM_DIR: team }),
      stdio: ["ignore", "pipe", "ignore"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.once("close", (status) => resolve({ status, stdout }));
  });
}

const panes = () => server.tmux("list-panes", "-a", "-F", "#{pane_id}").trim().split("\n");
/** The pane's text as the person scrolls it (tmux 3.3a scrolls a dead pane's last line up by one). */
const screen = (pane: string) => server.tmux("capture-pane", "-p", "-J", "-S-50", "-t", pane);
const document = (stdout: string) => {
  const parsed = JSON.parse(stdout);
  expect(check(schemas, "spawn.schema.json", parsed)).toEqual([]);
  return parsed;
};

beforeAll(() => {
  for (const folder of [home, repo, path.join(home, "bin"), path.join(home, "tmp")])
    mkdirSync(folder, { recursive: true });
  symlinkSync(PI_CLI, path.join(home, "bin", "pi"));
  for (const engine of ["claude", "codex"])
    symlinkSync(realpathSync(path.join(BIN, engine)), path.join(home, "bin", engine));
  // Claude Code onboarded and the repository trusted, but signed in nowhere: no key, no login.
  mkdirSync(path.join(home, ".claude"));
  writeFileSync(
    path.join(home, ".claude", ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      lastOnboardingVersion: CLAUDE_VERSION,
      theme: "dark",
      projects: { [repo]: { hasTrustDialogAccepted: true, allowedTools: [] } },
    }),
  );
  server = startPrivateTmux({
    command: "sleep 600",
    env: {
      HOME: home,
      TMPDIR: path.join(home, "tmp"),
      // No provider's key anywhere: pi has no model.
      PATH: `${path.join(home, "bin")}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
      ANTHROPIC_API_KEY: undefined,
      OPENAI_API_KEY: undefined,
      MUSTER_TEAM_DIR: team,
      MUSTER_HEARTBEAT_MS: "300",
      CLAUDE_CONFIG_DIR: path.join(home, ".claude"),
      // No network: every host is behind a proxy that is not there.
      HTTPS_PROXY: "http://127.0.0.1:9",
      HTTP_PROXY: "http://127.0.0.1:9",
      NO_PROXY: "127.0.0.1,localhost",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      GIT_SSH_COMMAND: "false",
    },
  });
});

afterAll(async () => {
  server.kill();
  await endCodexDaemons(home);
  rmSync(scratch, { recursive: true, force: true });
});

describe("muster spawn of an engine that cannot work", () => {
  // A real pi's start: 3.6–6.4 s on 2 loaded cores, so `pnpm test:long`.
  it.skipIf(!LONG_TESTS)(
    "pi with no model: exit 1 with pi's own words and how to give it one; the pane stays for the person, the task unmailed",
    async () => {
      const run = await fromPane([
        "spawn",
        "pi",
        "--label",
        "bob",
        "--task",
        "review the parser",
        "--json",
        "--",
        "-e",
        EXTENSION,
        "--offline",
      ]);
      expect(run.status).toBe(1);
      const failed = document(run.stdout);
      expect(failed).toMatchObject({
        ok: false,
        reason: "engine-cannot-work",
        label: "bob",
        task: { mailed: false },
        trouble: { pane: "running", kind: "no-model" },
      });
      expect(failed.trouble.words).toMatch(/No API key found|No models available/);
      const line = run.stderr.trim();
      expect(line.split("\n")).toHaveLength(1);
      expect(line).toContain(`muster: pi cannot run a turn: it says "${failed.trouble.words}"`);
      expect(line).toContain("--provider NAME --model ID");
      expect(line).toContain("end it with muster stop bob");
      // The pane is there, and shows the person what pi said.
      expect(panes()).toContain(failed.pane);
      expect(screen(failed.pane)).toContain(failed.trouble.words);
      // Every view of the team shows bob in trouble with pi's words, never idle: status (text and
      // --json), roster --json.
      const bob = { label: "bob", activity: { state: "trouble", reason: "trouble" } };
      const words = { kind: "no-model", words: failed.trouble.words };
      for (const command of ["status", "roster"]) {
        const read = await fromPane([command, "--json"]);
        expect(read.status).toBe(0);
        const listed = JSON.parse(read.stdout).members.find(
          (member: { label: string }) => member.label === "bob",
        );
        expect(listed, `${command} --json`).toMatchObject(bob);
        expect(listed.activity.trouble).toEqual(words);
      }
      const text = (await fromPane(["status"])).stdout;
      expect(text).toMatch(/\bbob\b.*trouble: no-model/);
      expect(text).toContain(`bob cannot run a turn: pi says "${failed.trouble.words}"`);
      expect(text).not.toMatch(/\bbob\b.*\bidle\b/);
      const stopped = await stop("bob");
      expect(JSON.parse(stopped.stdout)).toMatchObject({ ok: true, state: "stopped" });
      expect(panes()).not.toContain(failed.pane);
    },
  );

  it("an engine that dies at start: its pane is kept with its last words and status, and stop closes it", async () => {
    const script = path.join(scratch, "dies.sh");
    writeFileSync(script, "#!/bin/sh\necho 'fatal: cannot read the config'\nexit 3\n");
    chmodSync(script, 0o755);
    const run = await fromPane(["spawn", "pi", "--label", "dies", "--command", script, "--json"]);
    expect(run.status).toBe(1);
    const failed = document(run.stdout);
    expect(failed).toMatchObject({
      ok: false,
      reason: "engine-exited",
      trouble: { pane: "exited", lastWords: ["fatal: cannot read the config"] },
    });
    // tmux 3.3a names the exit status; under load it sometimes has none for the dead pane (seen in
    // about one run of six with six test files at once), and then none is said.
    expect([3, undefined]).toContain(failed.trouble.status);
    const status = failed.trouble.status === undefined ? "" : " (status 3)";
    expect(run.stderr.trim()).toBe(
      `muster: pi exited at start${status}; its last words: "fatal: cannot read the config"; its pane ${failed.pane} is kept for you to read; end it with muster stop dies to close it`,
    );
    expect(screen(failed.pane)).toContain("fatal: cannot read the config");
    // Not "waiting 30 s for pi to start": the wait ended as the program did.
    expect(failed.timings.doneMs).toBeLessThan(10_000);
    expect(JSON.parse((await stop("dies")).stdout)).toMatchObject({ ok: true });
    expect(panes()).not.toContain(failed.pane);
  });

  it.skipIf(!LONG_TESTS)(
    'Claude Code signed in nowhere: its own "Not logged in" and how to sign it in',
    async () => {
      // --command: muster's MCP entry is not installed here, so it would never join; the first turn
      // (the prompt after --) still shows what Claude Code says.
      const run = await fromPane([
        "spawn",
        "claude",
        "--label",
        "cc",
        "--command",
        "claude",
        "--json",
        "--",
        "hello",
      ]);
      expect(run.status).toBe(1);
      const failed = document(run.stdout);
      expect(failed).toMatchObject({
        reason: "engine-cannot-work",
        trouble: {
          pane: "running",
          kind: "not-signed-in",
          words: "Not logged in · Please run /login",
        },
      });
      expect(run.stderr).toContain(
        "sign Claude Code in: /login in its pane, or set ANTHROPIC_API_KEY",
      );
      expect(JSON.parse((await stop("cc")).stdout)).toMatchObject({ ok: true });
    },
  );

  it.skipIf(!LONG_TESTS)(
    "Codex signed in nowhere: its sign-in screen is the words, without waiting out the time limit",
    async () => {
      const run = await fromPane([
        "spawn",
        "codex",
        "--label",
        "cx",
        "--command",
        "codex",
        "--timeout",
        "60",
        "--json",
      ]);
      expect(run.status).toBe(1);
      const failed = document(run.stdout);
      expect(failed).toMatchObject({
        reason: "engine-cannot-work",
        trouble: { pane: "running", kind: "not-signed-in", words: "1. Sign in with ChatGPT" },
      });
      expect(failed.timings.doneMs).toBeLessThan(30_000);
      expect(run.stderr).toContain("run codex login");
      expect(JSON.parse((await stop("cx")).stdout)).toMatchObject({ ok: true });
    },
  );
});
