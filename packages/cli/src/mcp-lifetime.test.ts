// `muster mcp` ends when its client goes, whatever it was doing: a team open in flight when stdin
// closes (its NATS server slow to answer: a relay that holds the connection, then lets it through)
// must not leave a connection that nothing closes, and a server that never answers must not keep
// the process past the end's bound. A request in flight when stdin closes is still answered, and
// its answer written, before the process exits, and answers the client has not read by the time
// the bound passes are still written whole before the exit. The built binary, a real nats-server behind a
// pausable loopback relay, every process ended by pid. The two that sit out the end's bound are
// `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { type ChildProcess, spawn } from "node:child_process";
import { processAlive } from "@muster/node";
import {
  eventually,
  LONG_TESTS,
  lineQueue,
  NATS_SERVER_MISSING,
  startTcpPause,
  type TcpPause,
  tmuxEnv,
} from "@muster/test-support";
import { afterAll, describe as anyDescribe, beforeAll, expect, test } from "vitest";
import { clone, type NatsTeam, startNatsTeam } from "../test/nats-team.ts";
import { MUSTER, musterKit } from "../test/run.ts";

// Every case here runs a real nats-server: skipped, saying so, where there is none.
const describe = anyDescribe.skipIf(NATS_SERVER_MISSING);

const { scratch, muster } = musterKit("muster-cli-mcp-lifetime-");
const repo = clone(scratch, "repo", "git@github.com:acme/lifetime.git");
const folderRepo = clone(scratch, "folder-repo", "git@github.com:acme/lifetime-folder.git");
/** The end's bound, shortened for the test (the default is longer). */
const END_MS = 1_000;
let team: NatsTeam;
let relay: TcpPause;
const children: ChildProcess[] = [];

beforeAll(async () => {
  team = await startNatsTeam(muster, scratch, repo, ["alice"]);
  relay = await startTcpPause(team.server.port);
}, 60_000);

afterAll(async () => {
  for (const child of children)
    if (child.pid && child.exitCode === null && child.signalCode === null)
      process.kill(child.pid, "SIGKILL");
  await relay?.close();
  await team?.server.stop();
}, 30_000);

/** `muster mcp` in `cwd`; on NATS, its team's server reached through the relay. */
function startMcp(cwd: string, store: "nats" | "folder" = "nats") {
  const nats = { ...team.env("alice"), MUSTER_NATS: `nats://127.0.0.1:${relay.port}` };
  const child = spawn(process.execPath, [MUSTER, "mcp"], {
    cwd,
    env: tmuxEnv({
      HOME: scratch,
      ...(store === "nats" ? nats : {}),
      MUSTER_END_MS: String(END_MS),
    }),
    // Not the runner's stderr: a server left running would hold it.
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? (signal ? -1 : 0))),
  );
  const lines = lineQueue(child.stdout!);
  const ask = (message: Record<string, unknown>) =>
    `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`;
  return { child, exited, lines, ask, stderr: () => stderr };
}

const INITIALIZE = {
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "test", version: "0" },
  },
};
const ROSTER_CALL = { id: 2, method: "tools/call", params: { name: "team_roster", arguments: {} } };

/** How long the process took to end after `from`, or undefined when it had not by `withinMs`. */
async function endedWithin(exited: Promise<number>, from: number, withinMs: number) {
  return Promise.race([
    exited.then(() => performance.now() - from),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), withinMs)),
  ]);
}

/** Up to the moment stdin closes: a tool call whose team open is held at the relay. */
async function heldOpen() {
  const mcp = startMcp(repo);
  mcp.child.stdin!.write(mcp.ask(INITIALIZE));
  expect(JSON.parse(await mcp.lines.next())).toMatchObject({ id: 1, result: {} });
  mcp.child.stdin!.write(mcp.ask({ method: "notifications/initialized" }));
  // A session some way in: the server's Codex waker has opened the team already (its first
  // sweep, 500 ms after the start), through the relay.
  const before = relay.accepted();
  await eventually(() => relay.accepted() > before, Boolean, "the waker's team open");
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  relay.pause();
  mcp.child.stdin!.write(mcp.ask(ROSTER_CALL));
  await eventually(() => relay.held() > 0, Boolean, "the tool call's team open held at the relay");
  return mcp;
}

describe("muster mcp ends with its client", () => {
  test("a team open in flight when stdin closes: the connection it makes later is closed, the process ends", async () => {
    const mcp = await heldOpen();
    mcp.child.stdin!.end();
    const closedAt = performance.now();
    // The server answers once the end has begun (the old code closed its teams at once, and the
    // connection made after that was never closed).
    await new Promise((resolve) => setTimeout(resolve, 300));
    relay.resume();
    const took = await endedWithin(mcp.exited, closedAt, END_MS + 5_000);
    expect(took, `still running; stderr: ${mcp.stderr()}`).toBeDefined();
    // The call in flight was answered before the end (its answer written first).
    expect(mcp.lines.lines.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ id: 2, result: expect.anything() }),
    );
    expect(processAlive(mcp.child.pid!, undefined)).toBe("dead");
  }, 60_000);

  test.skipIf(!LONG_TESTS)(
    "a team open that never lands: the process ends within the end's bound",
    async () => {
      const mcp = await heldOpen();
      mcp.child.stdin!.end();
      const closedAt = performance.now();
      // Never resumed before the process ends: the open is cut off by the bound, not by the NATS
      // client's own connect timeout (5 s), and nothing it would make later holds the process.
      const took = await endedWithin(mcp.exited, closedAt, END_MS + 2_500);
      relay.resume();
      expect(took, `still running; stderr: ${mcp.stderr()}`).toBeDefined();
    },
    60_000,
  );

  test("a request in the same write as the end of stdin is answered before the process exits", async () => {
    const mcp = startMcp(folderRepo, "folder");
    mcp.child.stdin!.end(
      mcp.ask(INITIALIZE) + mcp.ask({ method: "notifications/initialized" }) + mcp.ask(ROSTER_CALL),
    );
    const took = await endedWithin(mcp.exited, performance.now(), END_MS + 10_000);
    expect(took, `still running; stderr: ${mcp.stderr()}`).toBeDefined();
    expect(await mcp.exited).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    const answers = mcp.lines.lines.map((line) => JSON.parse(line));
    expect(answers.map((answer) => answer.id)).toEqual([1, 2]);
    expect(answers[1]).toMatchObject({ result: { structuredContent: expect.anything() } });
  }, 60_000);

  test.skipIf(!LONG_TESTS)(
    "answers the client has not read yet when the bound passes are written before the exit",
    async () => {
      const mcp = startMcp(folderRepo, "folder");
      // More than the pipe and this side's buffer hold: the server's writes wait on the client.
      mcp.child.stdout!.pause();
      const lists = Array.from({ length: 20 }, (_, index) =>
        mcp.ask({ id: 10 + index, method: "tools/list" }),
      );
      mcp.child.stdin!.end(
        mcp.ask(INITIALIZE) + mcp.ask({ method: "notifications/initialized" }) + lists.join(""),
      );
      // Past the bound and its grace, the client still reading nothing.
      await new Promise((resolve) => setTimeout(resolve, END_MS + 1_500));
      mcp.child.stdout!.resume();
      const took = await endedWithin(mcp.exited, performance.now(), 10_000);
      expect(took, `still running; stderr: ${mcp.stderr()}`).toBeDefined();
      await new Promise((resolve) => setImmediate(resolve));
      const answers = mcp.lines.lines.map((line) => JSON.parse(line));
      expect(answers.map((answer) => answer.id)).toEqual([
        1,
        ...lists.map((_, index) => 10 + index),
      ]);
      expect(answers.at(-1)).toMatchObject({ result: { tools: expect.any(Array) } });
    },
    60_000,
  );
});
