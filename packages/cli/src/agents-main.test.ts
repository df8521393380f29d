// `muster agents [--json]` has a bundle of its own (_agents-main.ts, no command table): on a real
// private tmux server whose panes run stand-in engines (one of them a member), every line it
// answers, and every line it hands on, prints byte for byte what the full command line's main
// prints (dist/index.js's main, which is the shared build's), with the same exit status.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually, type PrivateTmux, startPrivateTmux, tmuxEnv } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentsLine } from "./_agents-main.ts";

const DIST = path.resolve(import.meta.dirname, "..", "dist");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-agents-main-")));
const team = path.join(scratch, "team");
let server: PrivateTmux;

/** The full command line's main, run as a process with the same streams and environment. */
const FULL = `const { main } = await import(${JSON.stringify(path.join(DIST, "index.js"))});
process.exitCode = await main(process.argv.slice(1), { stdout: process.stdout,
  stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() });`;

type Run = { status: number | null; stdout: string; stderr: string };

/** `muster args` by the executable (its agents bundle), or by the full main. */
function run(by: "executable" | "full", args: string[]): Promise<Run> {
  const command =
    by === "executable"
      ? [path.join(DIST, "muster.js"), ...args]
      : ["--input-type=module", "-e", FULL, ...args];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, command, {
      cwd: scratch,
      env: tmuxEnv({ HOME: scratch, MUSTER_TEAM_DIR: team }),
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
    child.stdin.end("");
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** A stand-in engine: Node running a file at the engine's path, doing `then` first if given. */
function fakeEngine(relative: string, then?: string) {
  const file = path.join(scratch, "fakes", relative);
  mkdirSync(path.dirname(file), { recursive: true });
  const first = then
    ? `require("node:child_process").execSync(${JSON.stringify(then)}, { stdio: "inherit", shell: "/bin/sh" });\n`
    : "";
  writeFileSync(file, `${first}setInterval(() => {}, 1 << 30);\n`);
  return `${process.execPath} ${file}`;
}

beforeAll(async () => {
  server = startPrivateTmux({
    command: "sleep 600",
    env: { MUSTER_TEAM_DIR: team, HOME: scratch },
  });
  const joined = path.join(scratch, "joined.json");
  const muster = `${process.execPath} ${path.join(DIST, "muster.js")}`;
  server.tmux(
    "new-window",
    "-d",
    "-t",
    "main",
    fakeEngine(
      "node_modules/@openai/codex/bin/codex.js",
      `${muster} join coder --json -L ${server.name} > ${joined} 2>&1`,
    ),
  );
  // An engine under a shell that stays (not exec'd): found by walking down from the pane's process.
  server.tmux(
    "new-window",
    "-d",
    "-t",
    "main",
    `bash -c '${fakeEngine("node_modules/@earendil-works/pi-coding-agent/dist/cli.js")}; true'`,
  );
  const elsewhere = path.join(scratch, "elsewhere");
  mkdirSync(elsewhere);
  server.tmux(
    "new-window",
    "-d",
    "-t",
    "main",
    "-c",
    elsewhere,
    fakeEngine("node_modules/@anthropic-ai/claude-code/cli.js"),
  );
  await eventually(
    () => {
      try {
        return JSON.parse(readFileSync(joined, "utf8")) as { ok: boolean };
      } catch {
        return undefined;
      }
    },
    (document) => document?.ok === true,
    "the stand-in Codex to join as coder",
  );
});

afterAll(() => {
  server?.kill();
  rmSync(scratch, { recursive: true, force: true });
});

describe("muster agents from its own bundle", () => {
  it("lists the engines, the member's label beside its own, as the full CLI does", async () => {
    const listed = await run("executable", ["agents", "--json", "-L", server.name]);
    expect(listed.status, listed.stderr).toBe(0);
    const document = JSON.parse(listed.stdout) as { agents: { engine: string; label: unknown }[] };
    expect(document.agents.map(({ engine, label }) => [engine, label]).sort()).toEqual([
      ["claude", null],
      ["codex", "coder"],
      ["pi", null],
    ]);
  });

  it("finds, from the panes' processes down, the agents status finds in the whole table", async () => {
    const [listed, status] = await Promise.all([
      run("executable", ["agents", "--json", "-L", server.name]),
      run("executable", ["status", "--json", "-L", server.name]),
    ]);
    type Found = { pid: number; inRepository?: boolean };
    const seen = (agents: Found[]) =>
      agents
        .map(({ inRepository: _, ...agent }) => agent)
        .sort((left, right) => left.pid - right.pid);
    const whole = JSON.parse(status.stdout) as { agents: Found[]; elsewhere: Found[] };
    expect(seen((JSON.parse(listed.stdout) as { agents: Found[] }).agents)).toEqual(
      seen([...whole.agents, ...whole.elsewhere]),
    );
  });

  it("prints byte for byte what the full command line prints, for every line", async () => {
    const lines = [
      // Answered by the bundle's own main.
      ["agents", "--json", "-L", server.name],
      ["agents", "-L", server.name],
      ["agents", "-S", server.socket, "--json", "--team-dir", team],
      ["agents", "--socket-name", server.name, "--team-dir", path.join(scratch, "no-team")],
      ["agents", "--json", "-L", "muster-test-000000000000"],
      // Handed to the full main: help, usage errors, an option twice.
      ["agents", "--help"],
      ["agents", "--json", "-L"],
      ["agents", "--json", "--json", "-L", server.name],
      ["agents", "-L", server.name, "--socket-name", server.name],
      ["agents", "stray", "-L", server.name],
      ["agents", "--jsn", "-L", server.name],
    ];
    for (const line of lines) {
      const [own, full] = await Promise.all([run("executable", line), run("full", line)]);
      expect(own, line.join(" ")).toEqual(full);
    }
  });
});

describe("the lines agents' own main answers", () => {
  it.each([
    [["agents"], { json: false }],
    [["agents", "--json"], { json: true }],
    [
      ["agents", "-L", "w", "--json", "--team-dir", "t"],
      { json: true, socketName: "w", teamDir: "t" },
    ],
    [
      ["agents", "--socket-path", "/s", "-L", "w"],
      { json: false, socketPath: "/s", socketName: "w" },
    ],
  ])("%j", (argv, options) => {
    expect(agentsLine(argv)).toEqual(options);
  });

  it.each([
    [["roster"]],
    [["agents", "--help"]],
    [["agents", "-h"]],
    [["agents", "--json", "--json"]],
    [["agents", "-L"]],
    [["agents", "-L", ""]],
    [["agents", "-L", "--json"]],
    [["agents", "-L", "a", "--socket-name", "b"]],
    [["agents", "--team-dir=t"]],
    [["agents", "stray"]],
    [["agents", "--"]],
    [["agents", "-L", "w", "--version"]],
  ])("not %j: the full CLI's", (argv) => {
    expect(agentsLine(argv)).toBeUndefined();
  });
});
