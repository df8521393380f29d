// Every door that puts a member kept live by its process on a team on NATS gets it its host's
// beater, not only `muster join`: a Claude Code session joined by its hook, and one joined by the
// MCP server it runs. Another host judges such a member by its heartbeat alone, so without the
// beater it would go stale there while its process lives. The built binary, a real nats-server,
// a fake `claude` (a bash script of that name) as the member's process.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { processAlive, processStart } from "@muster/node";
import {
  eventually,
  LONG_TESTS,
  lineQueue,
  NATS_SERVER_MISSING,
  tmuxEnv,
} from "@muster/test-support";
import { beaterLockName, closeTeams, holdBeaterLock, openTeam } from "@muster/wiring";
import { afterAll, describe as anyDescribe, beforeAll, expect, test } from "vitest";
import { clone, type NatsTeam, startNatsTeam } from "../test/nats-team.ts";
import { MUSTER, musterKit } from "../test/run.ts";

// Every case here runs a real nats-server: skipped, saying so, where there is none.
// Beaters on a real server: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
const describe = anyDescribe.skipIf(NATS_SERVER_MISSING || !LONG_TESTS);

const { scratch, muster } = musterKit("muster-cli-nats-beaters-");
// A team of its own: a host's beater is one per team name, and other files' teams are acme/app.
const repo = clone(scratch, "repo", "git@github.com:acme/beaters.git");
let team: NatsTeam;
const children: ChildProcess[] = [];
/** Muster processes the fake sessions started: ended by pid whatever a test left. */
const grandchildren: { pid: number; start: string | undefined }[] = [];

beforeAll(async () => {
  team = await startNatsTeam(muster, scratch, repo, ["alice"]);
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  for (const { pid, start } of grandchildren)
    if (processAlive(pid, start) === "alive") process.kill(pid, "SIGKILL");
  // The beater ends once its members are gone, while the server still answers (one that cannot
  // read the team would go on, holding its lock, for up to the TTL). Its lock is under the HOME
  // it was started with, the sessions' own: looked for under this process's HOME it was always
  // free, the server stopped at once, and the beater went on after the run (the janitor ended it).
  if (team) {
    const env = { ...process.env, HOME: scratch, ...team.env("alice") };
    const opened = await openTeam({ cwd: repo, env });
    if (opened.ok) {
      const lock = beaterLockName(opened.roster.store, env);
      const free = await eventually(
        () => holdBeaterLock(lock),
        (held) => held.ok,
        "beater ended",
        {
          attempts: 150,
        },
      );
      if (free.ok) await free.release();
    }
  }
  await closeTeams();
  await team?.server.stop();
}, 30_000);

/** A fake Claude Code: a process named `claude` that runs `script` (bash) with the team's settings. */
function claude(name: string, script: string) {
  const file = path.join(scratch, name, "claude");
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/bash\n${script}\n`);
  chmodSync(file, 0o755);
  const child = spawn(file, [], {
    cwd: repo,
    env: tmuxEnv({ HOME: scratch, ...team.env("alice"), MUSTER_HEARTBEAT_MS: "200" }),
    // Not the runner's stderr: a muster left running would hold it, and vitest waits for it.
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stderr!.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  children.push(child);
  return { child, id: `claude-${child.pid}-${processStart(child.pid!)}` };
}

async function record(id: string) {
  const opened = await openTeam({ cwd: repo, env: { ...process.env, ...team.env("alice") } });
  if (!opened.ok) throw new Error(opened.error);
  const read = await opened.roster.read();
  return read.ok ? read.members.find((member) => member.id === id) : undefined;
}

/** The processes `pid` started, by pid (Linux's list of a task's children). */
function childPids(pid: number): number[] {
  const listed = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  const pids = listed === "" ? [] : listed.split(" ").map(Number);
  grandchildren.push(...pids.map((pid) => ({ pid, start: processStart(pid) })));
  return pids;
}

/** Joined as a member kept by its process; then beaten while nothing else writes its record. */
async function beatenWhileAlive(id: string, child: ChildProcess) {
  const joined = await eventually(() => record(id), Boolean, "the session on the team", {
    attempts: 150,
  });
  expect(joined).toMatchObject({ liveness: "process", pid: child.pid });
  await eventually(
    () => record(id),
    (now) => now !== undefined && now.heartbeatAt !== joined?.heartbeatAt,
    "its heartbeat beaten by this host's beater",
    { attempts: 150 },
  );
  child.kill("SIGKILL");
  // Proven dead by its own host's beater (the only one that can): off the team.
  await eventually(
    () => record(id),
    (now) => now === undefined,
    "taken off the team",
    {
      attempts: 150,
    },
  );
}

describe("a member kept by its process, joined by another door on a team on NATS", () => {
  test("Claude Code's hook: the session it joins is beaten by its host's beater", async () => {
    const hook = `"${process.execPath}" "${MUSTER}" hook claude session-start <<<'{"session_id":"s1","hook_event_name":"SessionStart"}'`;
    const { child, id } = claude("hook", `${hook} >/dev/null\necho answered\nread -r _`);
    // The hook ends once it has answered (a team on NATS left open held it for ever, and Claude
    // Code waits for its SessionStart hook).
    await eventually(() => record(id), Boolean, "the session on the team", { attempts: 150 });
    childPids(child.pid!);
    let answered = false;
    void lineQueue(child.stdout!)
      .next()
      .then((line) => {
        answered = line === "answered";
      });
    await eventually(() => answered, Boolean, "the hook ended", { attempts: 150 });
    await beatenWhileAlive(id, child);
  }, 90_000);

  test("the MCP server: the caller its first tool call joins is beaten by its host's beater", async () => {
    const { child, id } = claude("mcp", `"${process.execPath}" "${MUSTER}" mcp`);
    const lines = lineQueue(child.stdout!);
    const ask = (message: Record<string, unknown>) =>
      child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    ask({
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "test", version: "0" },
      },
    });
    await lines.next();
    ask({ method: "notifications/initialized" });
    ask({ id: 2, method: "tools/call", params: { name: "team_roster", arguments: {} } });
    expect(JSON.parse(await lines.next())).toMatchObject({ id: 2, result: {} });
    const [server] = childPids(child.pid!);
    const serverStart = processStart(server!);
    await beatenWhileAlive(id, child);
    // The server ends when its client closes the connection (a team on NATS left open held it).
    child.stdin!.end();
    await eventually(
      async () => processAlive(server!, serverStart),
      (alive) => alive === "dead",
      "the MCP server ended with its connection",
      { attempts: 100 },
    );
  }, 90_000);
});
