// MCP tool calls: the built server started as the child of an engine (a script named `claude`),
// 10 members on the team, the SDK's client over stdio; p50 and p95 of team_roster and team_send.
// And the server's start: `muster mcp` spawned until its tools/list is answered, against a bare
// Node that answers one line on stdio (Codex 0.171 gives a starting server about 1 s before a
// turn goes on without its tools); and the same start again with four busy processes running
// beside it (four busy cores' worth of load, as CI has), against that grace.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { type BenchRow, compare, percentile } from "../src/bench-kit.ts";
import { MCP_HANDSHAKE } from "../src/mcp-handshake.ts";

const SERVE = path.resolve(import.meta.dirname, "..", "..", "packages", "mcp", "test", "serve.mjs");
const MUSTER = path.resolve(
  import.meta.dirname,
  "..",
  "..",
  "packages",
  "cli",
  "dist",
  "muster.js",
);
const MEMBERS = 10;

/** Spawn `args` with Node, write `lines` one at a time as each answer comes; resolve at the last. */
function answered(args: string[], lines: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "ignore"] });
    let buffer = "";
    let next = 0;
    const write = () => child.stdin.write(`${lines[next++]}\n`);
    child.once("error", reject);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        buffer = buffer.slice(end + 1);
        if (next < lines.length) write();
        else {
          child.kill();
          resolve();
        }
      }
    });
    write();
  });
}

const INITIALIZE = JSON.stringify(MCP_HANDSHAKE[0]);
const TOOLS = MCP_HANDSHAKE.slice(1)
  .map((line) => JSON.stringify(line))
  .join("\n");
const RUNS = 200;

/** `count` processes that keep a core busy each until `stop` is called. */
function busy(count: number) {
  const children: ChildProcess[] = [];
  for (let index = 0; index < count; index += 1)
    children.push(spawn(process.execPath, ["-e", "for (;;);"], { stdio: "ignore" }));
  return () => {
    for (const child of children) child.kill("SIGKILL");
  };
}

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-bench-mcp-"));
  const teamDir = path.join(dir, "team");
  let client: Client | undefined;
  try {
    const team = await openTestTeam(teamDir);
    for (let index = 0; index < MEMBERS; index += 1)
      await joinAsThisProcess(team, `member-${index}`, `member-${index}`);
    mkdirSync(path.join(dir, "bin"));
    const claude = path.join(dir, "bin", "claude");
    writeFileSync(claude, `#!/bin/bash\n"${process.execPath}" "${SERVE}"\n`);
    chmodSync(claude, 0o755);
    const transport = new StdioClientTransport({
      command: claude,
      args: [],
      env: {
        PATH: process.env.PATH ?? "",
        HOME: dir,
        MUSTER_TEAM_DIR: teamDir,
        MUSTER_LABEL: "bench",
      },
    });
    client = new Client({ name: "muster-bench", version: "0.0.0" });
    await client.connect(transport);
    const connected = client;
    const time = async (name: string, args: Record<string, unknown>) => {
      for (let index = 0; index < 10; index += 1)
        await connected.callTool({ name, arguments: args });
      const times: number[] = [];
      for (let index = 0; index < RUNS; index += 1) {
        const started = performance.now();
        const answer = await connected.callTool({ name, arguments: args });
        times.push(performance.now() - started);
        if (answer.isError) throw new Error(JSON.stringify(answer.content));
      }
      return { p50: percentile(times, 50), p95: percentile(times, 95) };
    };
    const env = { PATH: process.env.PATH ?? "", HOME: dir, MUSTER_TEAM_DIR: teamDir };
    /** `muster mcp` started until tools/list is answered, against Node answering one line. */
    const startUp = () =>
      compare(
        () => answered([MUSTER, "mcp"], [INITIALIZE, TOOLS], env),
        () =>
          answered(
            ["-e", "process.stdin.once('data', (line) => process.stdout.write(line))"],
            [INITIALIZE],
            env,
          ),
        { warmup: 2, runs: 15 },
      );
    const start = await startUp();
    const stop = busy(4);
    const loaded = await startUp().finally(stop);
    const roster = await time("team_roster", {});
    const send = await time("team_send", { to: "member-3", message: "benchmark mail" });
    return [
      {
        name: "mcp: muster mcp started until tools/list is answered",
        medianMs: start.figureMs,
        reference: { name: "node answering one line on stdio", medianMs: start.referenceMs },
        // Issue 40's target: every short-lived start within 1.5× a bare Node's.
        target: { text: "≤ 1.5× bare Node", met: start.figureMs <= 1.5 * start.referenceMs },
      },
      {
        name: "mcp: the same, beside 4 busy processes",
        medianMs: loaded.figureMs,
        reference: { name: "node answering one line on stdio", medianMs: loaded.referenceMs },
        target: { text: "< 1 s (Codex's start-up grace)", met: loaded.figureMs < 1000 },
      },
      {
        name: `mcp: team_roster call, p50 (team of ${MEMBERS + 1}, stdio, SDK client)`,
        medianMs: roster.p50,
        target: { text: "< 20 ms", met: roster.p50 < 20 },
        note: `p95 ${roster.p95.toFixed(1)} ms`,
      },
      {
        name: `mcp: team_send call, p50 (team of ${MEMBERS + 1}, stdio, SDK client)`,
        medianMs: send.p50,
        target: { text: "< 20 ms", met: send.p50 < 20 },
        note: `p95 ${send.p95.toFixed(1)} ms`,
      },
    ];
  } finally {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
