// A real Codex 0.171.0, offline (`codex exec`, the scripted model), set up by `muster install
// codex`: Codex filters the environment it gives MCP servers to HOME, PATH and a few more, plus
// the entry's `env_vars`. The settings muster's doors read must reach its server through that
// list: the mail mode a user exports is the Codex member's, and a user on NATS gets a Codex member
// in the NATS team, not in a team folder of its own (a split team).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  eventually,
  LONG_TESTS,
  NATS_SERVER_MISSING,
  offlineCodex,
  startScriptedModel,
  tmuxEnv,
} from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterEach, expect, it } from "vitest";
import { startNatsTeam } from "../test/nats-team.ts";
import { musterKit } from "../test/run.ts";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function run(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(CODEX, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
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

/** The processes that still run from this home (codex exec's MCP server can outlive it a moment). */
function runningIn(home: string): number[] {
  return readdirSync("/proc")
    .filter((pid) => {
      try {
        return /^\d+$/.test(pid) && realpathSync(`/proc/${pid}/cwd`).startsWith(home);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A throwaway HOME with a repository (origin set: its NATS team's name), installed and offline. */
async function installedCodex(prefix: string, hold?: Promise<unknown>) {
  const home = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  const teamDir = path.join(home, "team");
  const repo = path.join(home, "repo");
  mkdirSync(repo);
  execFileSync("git", ["init", "-q", repo]);
  execFileSync("git", ["-C", repo, "remote", "add", "origin", "git@github.com:acme/env.git"]);
  const env = tmuxEnv({
    HOME: home,
    MUSTER_TEAM_DIR: teamDir,
    OPENAI_API_KEY: undefined,
    CODEX_HOME: undefined,
    MUSTER_MAIL: undefined,
    MUSTER_WAKE: undefined,
    MUSTER_NATS: undefined,
    MUSTER_NATS_CREDS: undefined,
    MUSTER_NATS_TEAM: undefined,
  });
  execFileSync(process.execPath, [MUSTER, "install", "codex"], { cwd: repo, env });
  const model = await startScriptedModel([
    { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
    { text: "Looked.", after: hold },
  ]);
  cleanups.push(async () => {
    await model.close();
    for (let attempt = 0; attempt < 100 && runningIn(home).length > 0; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    // What detached and lives on (on NATS, the `muster beat` its MCP server started, until its
    // next round finds no member) is ended here, by pid: nothing of the test outlives it.
    for (const pid of runningIn(home)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // It ended meanwhile.
      }
    }
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  offlineCodex({ home, repo, baseUrl: model.baseUrl });
  const exec = async (more: NodeJS.ProcessEnv) => {
    const codex = await run(["exec", "--skip-git-repo-check", "look at the team"], {
      cwd: repo,
      env: { ...env, ...more },
    });
    expect(codex.status, codex.stderr).toBe(0);
    expect(codex.stderr).toContain("mcp: muster/team_roster");
    return codex;
  };
  return { home, repo, teamDir, env, exec, model };
}

it("the mail mode a user exports (MUSTER_MAIL=off) is the Codex member's", async () => {
  const codex = await installedCodex("muster-codex-mail-");
  await codex.exec({ MUSTER_MAIL: "off" });
  const roster = await openTestTeam(codex.teamDir);
  const read = await roster.read({ all: true });
  const members = read.ok ? read.members : [];
  expect(members.map((member) => [member.id.startsWith("codex-"), member.watching])).toEqual([
    [true, { armed: false, wake: false }],
  ]);
}, 90_000);

// A server on NATS ends slower (~7 s in all): with the real-engine sessions, `pnpm test:long`.
it.skipIf(!LONG_TESTS || NATS_SERVER_MISSING)(
  "a user on NATS (MUSTER_NATS, MUSTER_NATS_CREDS) gets a Codex member in the NATS team, none in a folder",
  async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const codex = await installedCodex("muster-codex-nats-", held);
    cleanups.push(() => release());
    const { scratch, muster } = musterKit("muster-codex-nats-kit-");
    cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
    const team = await startNatsTeam(muster, scratch, codex.repo, ["coder", "lead"]);
    cleanups.push(() => team.server.stop());
    // MUSTER_TEAM_DIR names a folder exactly (it wins over NATS): a user on NATS does not set it.
    const exec = codex.exec({ ...team.env("coder"), MUSTER_TEAM_DIR: undefined });
    // The turn is held after team_roster answered: the member is live while the team is read (a
    // member on NATS whose process ended is taken off the team).
    await eventually(
      () => JSON.stringify(codex.model.requests),
      (sent) => sent.includes("function_call_output"),
      "team_roster to be answered",
      { attempts: 300 },
    );
    const answered = JSON.stringify(codex.model.requests.at(-1)?.input ?? "").replace(
      /^.*function_call_output/,
      "",
    );
    const roster = await muster(["roster", "--json"], { cwd: codex.repo, env: team.env("lead") });
    expect(roster.status, roster.stderr).toBe(0);
    const ids = (JSON.parse(roster.stdout).members as { id: string }[]).map((member) => member.id);
    expect(ids, answered).toEqual([expect.stringMatching(/^codex-[0-9a-f-]{36}$/)]);
    // Not in the repository's team folder as well: the folder's roster, as a user off NATS sees it.
    const folder = JSON.parse(
      execFileSync(process.execPath, [MUSTER, "roster", "--all", "--json"], {
        cwd: codex.repo,
        env: { ...codex.env, MUSTER_TEAM_DIR: undefined },
        encoding: "utf8",
      }),
    ) as { members: unknown[] };
    expect(folder.members).toEqual([]);
    release();
    await exec;
  },
  90_000,
);
