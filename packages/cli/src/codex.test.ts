// A real Codex 0.171.0, offline: `codex exec` against the scripted Responses API model, in a
// throwaway HOME configured by `muster install codex`. Its model calls muster's team_send; a
// member kept live by this test receives the mail. (Codex exec starts the MCP server as its own
// child, so the caller is found by ancestry under the thread id Codex names in `_meta`.) Real
// Codex runs: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs; `pnpm test` checks muster's
// side of each door against a stand-in Codex (mcp-codex, install-codex, identity-rule).
import { execFileSync, spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LONG_TESTS, offlineCodex, startScriptedModel, tmuxEnv } from "@muster/test-support";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** The pids whose environment names this team folder (the MCP servers Codex started for it). */
function teamProcesses(teamDir: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, "utf8")
          .split("\0")
          .includes(`MUSTER_TEAM_DIR=${teamDir}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * A throwaway HOME holding a git repository and a team path, removed after the test once every
 * process of its team has ended (codex exec's MCP server, muster, can outlive it for a moment and
 * write the team folder while the home is removed); `env` runs muster and Codex there.
 */
function scratchHome(prefix: string) {
  const home = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  const teamDir = path.join(home, "team");
  cleanups.push(async () => {
    for (let attempt = 0; attempt < 100 && teamProcesses(teamDir).length > 0; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  const repo = path.join(home, "repo");
  mkdirSync(repo);
  execFileSync("git", ["init", "-q", repo]);
  const env = tmuxEnv({
    HOME: home,
    MUSTER_TEAM_DIR: teamDir,
    OPENAI_API_KEY: undefined,
    CODEX_HOME: undefined,
  });
  return { home, teamDir, repo, env };
}

it.skipIf(!LONG_TESTS)(
  "a real Codex set up by muster install codex sends team mail through muster's MCP server",
  async () => {
    const { home, teamDir, repo, env } = scratchHome("muster-codex-");
    execFileSync(process.execPath, [MUSTER, "install", "codex"], { cwd: repo, env });

    const model = await startScriptedModel([
      {
        call: {
          name: "team_send",
          namespace: "mcp__muster",
          arguments: { to: "reviewer", message: "hello from a real Codex" },
        },
      },
      { text: "Sent." },
    ]);
    cleanups.push(() => model.close());
    offlineCodex({ home, repo, baseUrl: model.baseUrl });

    const roster = await openTestTeam(teamDir);
    await joinAsThisProcess(roster, "reviewer", "peer");

    const codex = await run(CODEX, ["exec", "--skip-git-repo-check", "tell the reviewer hello"], {
      cwd: repo,
      env,
    });
    expect(codex.status, codex.stderr).toBe(0);
    expect(codex.stderr).toContain("mcp: muster/team_send");
    // The tool answered Codex with muster's structured result: sent, as a member (not a guest).
    const output = JSON.stringify(model.requests.at(-1)?.input ?? "");
    expect(output).toContain('\\"ok\\":true');
    expect(output).toContain('\\"guest\\":null');
    const inbox = await roster.receive("peer");
    expect(
      inbox.ok &&
        inbox.messages.map((message) => [message.body, message.from.label.startsWith("codex-")]),
    ).toEqual([["hello from a real Codex", true]]);
  },
  90_000,
);

it.skipIf(!LONG_TESTS)(
  "Codex's own commit of a path it leased passes the git guard: its shell is its MCP member (one agent, one member)",
  async () => {
    const { home, repo, teamDir, env } = scratchHome("muster-codex-guard-");
    mkdirSync(path.join(repo, "src"));
    writeFileSync(path.join(repo, "src", "auth.ts"), "export {};\n");
    execFileSync("git", ["-C", repo, "config", "user.email", "codex@example.com"]);
    execFileSync("git", ["-C", repo, "config", "user.name", "Codex"]);
    execFileSync(process.execPath, [MUSTER, "install", "codex"], { cwd: repo, env });
    execFileSync(process.execPath, [MUSTER, "install", "git-hook"], { cwd: repo, env });
    const outcome = path.join(repo, "commit.txt");
    const model = await startScriptedModel([
      { call: { name: "team_lease", namespace: "mcp__muster", arguments: { paths: ["src/**"] } } },
      {
        call: {
          name: "exec_command",
          arguments: {
            cmd: `git add src && git commit -q -m auth > ${outcome} 2>&1; echo "exit $?" >> ${outcome}`,
          },
        },
      },
      { text: "Committed." },
    ]);
    cleanups.push(() => model.close());
    offlineCodex({ home, repo, baseUrl: model.baseUrl });
    const roster = await openTestTeam(teamDir);
    await joinAsThisProcess(roster, "reviewer", "peer");

    const codex = await run(
      CODEX,
      [
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "lease and commit",
      ],
      { cwd: repo, env },
    );
    expect(codex.status, codex.stderr).toBe(0);
    const said = readFileSync(outcome, "utf8");
    expect(said, said).toMatch(/exit 0\n$/);
    expect(execFileSync("git", ["-C", repo, "log", "--format=%s"], { encoding: "utf8" })).toBe(
      "auth\n",
    );
  },
  90_000,
);

it.skipIf(!LONG_TESTS)(
  "codex exec started with MUSTER_LABEL=bob joins as bob while its tool runs a codex-named process naming another",
  async () => {
    // Its server is its own child (ancestry), with its own environment: no check of the Codex
    // processes under it (here a tool's `MUSTER_LABEL=mallory exec -a codex sleep`) decides.
    const { home, repo, teamDir, env } = scratchHome("muster-codex-exec-label-");
    execFileSync(process.execPath, [MUSTER, "install", "codex"], { cwd: repo, env });
    const pidFile = path.join(home, "tool.pid");
    const tool = `echo $$ > '${pidFile}'; MUSTER_LABEL=mallory exec -a codex sleep 20`;
    const model = await startScriptedModel([
      { call: { name: "exec_command", arguments: { cmd: tool, yield_time_ms: 1000 } } },
      {
        call: {
          name: "team_send",
          namespace: "mcp__muster",
          arguments: { to: "reviewer", message: "hi" },
        },
      },
      { text: "Sent." },
    ]);
    cleanups.push(() => model.close());
    cleanups.push(() => {
      try {
        process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
      } catch {
        // never started, or ended with Codex
      }
    });
    offlineCodex({ home, repo, baseUrl: model.baseUrl });
    const roster = await openTestTeam(teamDir);
    await joinAsThisProcess(roster, "reviewer", "peer");
    const codex = await run(
      CODEX,
      ["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "go"],
      { cwd: repo, env: { ...env, MUSTER_LABEL: "bob" } },
    );
    expect(codex.status, codex.stderr).toBe(0);
    expect(readFileSync(pidFile, "utf8")).toMatch(/^\d+\n$/); // the tool ran
    const inbox = await roster.receive("peer");
    expect(inbox.ok && inbox.messages.map((message) => message.from.label)).toEqual(["bob"]);
  },
  90_000,
);
