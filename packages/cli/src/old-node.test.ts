// Every entry of the built CLI run by a Node older than package.json's `engines` (the machine's
// own /usr/bin/node where it is one, as a user meets it): the muster command, `muster mcp`, the
// hooks Claude Code and Codex run, the git hook and tmux's status line each answer in one line what
// they need, in the terms of whoever runs them, never with a stack trace. Where no old Node exists,
// the same cases run on this Node with `process.versions.node` stubbed by a preload (the first
// module reads nothing else), and their names say so. Also: the first module parses as an ES2018
// script with one dynamic import, so that Nodes far older than this one reach its check.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import vm from "node:vm";
import { attachClient, eventually, startPrivateTmux, tmuxEnv } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import { MUSTER, type Run } from "../test/run.ts";
import { hookText } from "./_git-hook.js";

const NEEDS = packageJson.engines.node.replace(/^>=\s*/, "");
const MAJOR = NEEDS.split(".")[0];
const olderThanNeeded = (version: string) => {
  const [have, want] = [version, NEEDS].map((text) => text.split(".").map(Number));
  for (let index = 0; index < 3; index += 1)
    if ((have![index] ?? 0) !== (want![index] ?? 0))
      return (have![index] ?? 0) < (want![index] ?? 0);
  return false;
};

/** The old Node the cases run with: the machine's own, or this one told it is 20.0.0. */
const SYSTEM_NODE = "/usr/bin/node";
const systemVersion = existsSync(SYSTEM_NODE)
  ? execFileSync(SYSTEM_NODE, ["-p", "process.versions.node"], { encoding: "utf8" }).trim()
  : undefined;
const REAL = systemVersion !== undefined && olderThanNeeded(systemVersion);
const OLD = REAL
  ? { node: SYSTEM_NODE, version: systemVersion!, env: {} }
  : {
      node: process.execPath,
      version: "20.0.0",
      env: {
        NODE_OPTIONS: `--import=data:text/javascript,Object.defineProperty(process.versions,'node',{value:'20.0.0'})`,
      },
    };
const WHICH = REAL
  ? `Node ${OLD.version} (${SYSTEM_NODE})`
  : `a stubbed Node 20.0.0 (${SYSTEM_NODE} is ${systemVersion ?? "absent"}, not older than ${NEEDS})`;
if (!REAL) console.warn(`old-node.test.ts: no real old Node here; the cases run on ${WHICH}`);

const scratch = mkdtempSync(path.join(tmpdir(), "muster-old-node-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const execute = promisify(execFile);
/**
 * The built muster run by the old Node: its status and both streams, and with `watchInput` whether
 * writing its input failed (a child that exits without reading it makes the write fail).
 */
const oldMuster = (
  args: string[],
  options: { input?: string; env?: object; watchInput?: boolean } = {},
) =>
  new Promise<Run & { inputError?: string }>((resolve) => {
    let inputError: string | undefined;
    const child = execFile(
      OLD.node,
      [MUSTER, ...args],
      {
        cwd: scratch,
        env: tmuxEnv({ HOME: scratch, ...OLD.env, ...options.env }),
        timeout: 20_000,
      },
      (error, stdout, stderr) =>
        resolve({
          status: error ? (error.code as number) : 0,
          stdout,
          stderr,
          ...(options.watchInput ? { inputError } : {}),
        }),
    );
    child.stdin?.on("error", (error) => {
      inputError = error.message;
    });
    child.stdin?.end(options.input ?? "");
  });

const THIS = `this is Node ${OLD.version} (${OLD.node})`;
const INSTALL = `install Node ${NEEDS} or newer (nvm install ${MAJOR}, or your package manager)`;
const LINE = `muster needs Node >= ${NEEDS}; ${THIS}. Install Node ${NEEDS} or newer (nvm install ${MAJOR}, or your package manager), then run muster again.\n`;
const EDIT = JSON.stringify({
  hook_event_name: "PreToolUse",
  tool_name: "Edit",
  tool_input: { file_path: path.join(scratch, "a.ts"), old_string: "a", new_string: "b" },
});
const EDIT_REFUSED = `This edit is refused: muster could not check it against the team's leases (muster needs Node >= ${NEEDS}; ${THIS}); ${INSTALL}, or set MUSTER_GUARD=warn to let changes through unchecked.`;
const HOOKS_IDLE = `muster needs Node >= ${NEEDS}; ${THIS}, so its hooks do nothing: ${INSTALL}.`;

// Each case its own process, run side by side.
describe.concurrent(`every entry on ${WHICH}`, () => {
  it.each(["--version", "doctor", "status", "send bob hi", "(no arguments)"])(
    "muster %s says in one line what it needs, exit 1",
    async (line) => {
      const args = line.startsWith("(") ? [] : line.split(" ");
      expect(await oldMuster(args)).toEqual({ status: 1, stdout: "", stderr: LINE });
    },
  );

  it("--json is a refusal's document on stdout, the line on stderr", async () => {
    const run = await oldMuster(["--version", "--json"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(LINE);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      reason: "node-version",
      error: `muster needs Node >= ${NEEDS}; ${THIS}`,
      fix: `${INSTALL}, then run muster again`,
    });
  });

  it("muster mcp (what Codex and Claude Code start) says it on stderr, exit 1", async () => {
    const initialize = `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} })}\n`;
    expect(await oldMuster(["mcp"], { input: initialize })).toEqual({
      status: 1,
      stdout: "",
      stderr: `muster mcp needs Node >= ${NEEDS}; ${THIS}. Install Node ${NEEDS} or newer (nvm install ${MAJOR}, or your package manager), then restart the agent that runs it.\n`,
    });
  });

  it("Claude Code's PreToolUse guard refuses the edit: exit 2, the reason on stderr", async () => {
    const run = await oldMuster(["hook", "claude", "pre-tool-use"], { input: EDIT });
    expect(run).toEqual({ status: 2, stdout: "", stderr: `${EDIT_REFUSED}\n` });
  });

  it("the guard lets the edit through with MUSTER_GUARD=warn, said to the person", async () => {
    const run = await oldMuster(["hook", "claude", "pre-tool-use"], {
      input: EDIT,
      env: { MUSTER_GUARD: "warn" },
    });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({
      systemMessage: `muster guard (warn only): this edit was not checked against the team's leases: muster needs Node >= ${NEEDS}; ${THIS}; ${INSTALL}.`,
    });
  });

  it.each(["stop", "user-prompt-submit", "session-start", "file-changed", "permission-request"])(
    "Claude Code's %s hook does not break the session: exit 0, a note the person sees",
    async (event) => {
      const run = await oldMuster(["hook", "claude", event], { input: "{}" });
      expect(run.status).toBe(0);
      expect(run.stderr).toBe("");
      expect(JSON.parse(run.stdout)).toEqual({ systemMessage: HOOKS_IDLE });
    },
  );

  it("a large hook input is read to its end (Claude Code's write never meets a closed pipe)", async () => {
    const write = JSON.stringify({ tool_name: "Write", tool_input: { content: "x".repeat(4e6) } });
    const run = await oldMuster(["hook", "claude", "pre-tool-use"], {
      input: write,
      watchInput: true,
    });
    expect(run).toStrictEqual({
      status: 2,
      stdout: "",
      stderr: `${EDIT_REFUSED}\n`,
      inputError: undefined,
    });
  });

  it("Codex's notify still runs the user's own program, then says why muster did not", async () => {
    const out = path.join(scratch, "chained.txt");
    const payload = JSON.stringify({ type: "agent-turn-complete", "thread-id": "t" });
    const program = ["sh", "-c", `printf %s "$1" > '${out}'`, "sh"];
    const run = await oldMuster(["hook", "codex", "notify", "--", ...program, payload]);
    expect(run).toEqual({
      status: 1,
      stdout: "",
      stderr: `muster hook codex notify needs Node >= ${NEEDS}; ${THIS}. Install Node ${NEEDS} or newer (nvm install ${MAJOR}, or your package manager), then restart Codex.\n`,
    });
    await eventually(
      () => (existsSync(out) ? readFileSync(out, "utf8") : ""),
      (text) => text === payload,
      "the chained notify program's output",
    );
  });

  it("tmux's status line gets a short line it can show", async () => {
    const run = await oldMuster(["status", "--line"]);
    expect(run).toEqual({ status: 1, stdout: `muster: needs Node >= ${NEEDS}\n`, stderr: "" });
    // And tmux shows it: a client attached to a server whose status-right is muster's job.
    const tmux = startPrivateTmux({ env: OLD.env });
    const client = { close: () => undefined } as { close(): void };
    try {
      tmux.tmux("set-option", "-g", "status-right", `#(${OLD.node} ${MUSTER} status --line)`);
      const attached = await attachClient(tmux, path.join(scratch, "screen"));
      client.close = attached.close;
      await eventually(
        () => attached.drawn(),
        (drawn) => drawn.includes(`muster: needs Node >= ${NEEDS}`),
        "muster's line on tmux's status line",
      );
    } finally {
      client.close();
      tmux.kill();
    }
  });

  it("the git hook muster installs refuses the commit, and passes it with MUSTER_GUARD=warn", async () => {
    const repo = mkdtempSync(path.join(scratch, "repo-"));
    const env = tmuxEnv({
      HOME: repo,
      ...OLD.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    });
    const sh = (script: string, extra: object = {}) =>
      execute("sh", ["-c", script], { cwd: repo, env: { ...env, ...extra } }).then(
        (done) => ({ code: 0, ...done }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    await sh("git init -q -b main . && git commit -q --allow-empty -m start");
    // The hook `muster guard --install` writes when the Node it ran on is this one.
    const hook = path.join(repo, ".git", "hooks", "pre-commit");
    writeFileSync(hook, hookText("pre-commit", OLD.node, MUSTER), { mode: 0o755 });
    const refused = await sh("echo x > a.txt && git add a.txt && git commit -qm a");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `This commit is refused: muster could not check it against the team's leases (muster needs Node >= ${NEEDS}; ${THIS}); ${INSTALL}, or set MUSTER_GUARD=warn to let changes through unchecked.\n`,
    );
    expect((await sh("git log --format=%s")).stdout).toBe("start\n");
    const warned = await sh("git commit -qm a", { MUSTER_GUARD: "warn" });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toBe(
      `muster guard: muster needs Node >= ${NEEDS}; ${THIS}; leases were not checked\n`,
    );
    expect((await sh("git log --format=%s")).stdout).toBe("a\nstart\n");
  });
});

describe("the first module", () => {
  const source = readFileSync(MUSTER, "utf8");

  it("is a script to every Node: no import before the check, no top-level await", () => {
    // A classic script refuses `import`/`export` statements, `import.meta` and top-level await.
    expect(() => new vm.Script(source)).not.toThrow();
    // Its imports are the real start, once Node is new enough, and the builtin that runs a chained
    // notify program, once it is not.
    expect(source.match(/\bimport\([^)]*\)/g)).toEqual([
      'import("node:child_process")',
      'import("./start.js")',
    ]);
  });

  it("has no syntax newer than ES2018 (dynamic import aside)", async () => {
    const tsup = createRequire(import.meta.url).resolve("tsup");
    const esbuild = createRequire(tsup)("esbuild") as {
      transformSync(code: string, options: object): { code: string };
    };
    const as = (target: string) =>
      esbuild.transformSync(source, {
        format: "esm",
        target,
        supported: { "dynamic-import": true },
      }).code;
    // Lowered for ES2018 is unchanged: nothing in it needed lowering.
    expect(as("es2018")).toBe(as("esnext"));
  });

  it("stays tiny: every start of muster reads it before its real code", () => {
    expect(Buffer.byteLength(source)).toBeLessThan(6_000);
  });
});
