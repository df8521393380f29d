// The CLI installed as a user installs it: `npm install -g` of its tarball alone, into a throwaway
// prefix, HOME and npm cache, so that whatever it needs must come the way a user's does (a
// dependency on a package that is not on the registry fails here as it would for them). Then the
// installed `muster` answers --version, and `muster mcp` answers initialize, tools/list and a
// tool call (the call is the bundled SDK's to answer, after the front's handover).
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { execaSync } from "execa";
import { MCP_HANDSHAKE } from "./mcp-handshake.ts";

/** Bytes under a folder, every file counted once. */
function bytesUnder(folder: string): number {
  let total = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) total += statSync(path.join(entry.parentPath, entry.name)).size;
  return total;
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

/** Talk to `muster mcp` one request at a time, each after the last one's answer; the answers. */
function converse(command: string, lines: object[], env: NodeJS.ProcessEnv): Promise<unknown[]> {
  const requests = lines.filter((line) => "id" in line).length;
  return new Promise((resolve, reject) => {
    const child = spawn(command, ["mcp"], { env, stdio: ["pipe", "pipe", "pipe"] });
    const answers: unknown[] = [];
    let sent = 0;
    let buffer = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`muster mcp answered ${answers.length} of ${requests} in 30 s: ${stderr}`));
    }, 30_000);
    /** Send up to and including the next request (a notification asks for no answer). */
    const next = () => {
      while (sent < lines.length) {
        const line = lines[sent++]!;
        child.stdin.write(`${JSON.stringify(line)}\n`);
        if ("id" in line) return;
      }
    };
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        answers.push(JSON.parse(buffer.slice(0, end)));
        buffer = buffer.slice(end + 1);
        if (answers.length < requests) next();
        else {
          clearTimeout(timer);
          child.stdin.end();
          resolve(answers);
        }
      }
    });
    child.once("error", reject);
    next();
  });
}

export async function installCliGlobally(tarball: string, work: string) {
  const prefix = path.join(work, "prefix");
  const home = path.join(work, "home");
  const cache = path.join(work, "npm-cache");
  for (const folder of [prefix, home, cache]) mkdirSync(folder, { recursive: true });
  const env = { ...process.env, HOME: home, npm_config_cache: cache, npm_config_prefix: prefix };
  const npm = execaSync(
    "npm",
    ["install", "-g", "--no-audit", "--no-fund", "--loglevel=error", tarball],
    { env, cwd: work, reject: false, timeout: 300_000 },
  );
  if (npm.failed) throw new Error(npm.message);
  const muster = path.join(prefix, "bin", "muster");
  const runEnv = { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home };
  const version = execaSync(muster, ["--version"], { env: runEnv, reject: false });
  if (version.failed) throw new Error(`muster --version: ${version.message}`);
  const teamEnv = { ...runEnv, MUSTER_TEAM_DIR: path.join(work, "team") };
  const answers = await converse(
    muster,
    [
      ...MCP_HANDSHAKE,
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "team_roster", arguments: {} },
      },
    ],
    teamEnv,
  );
  const [, listed, called] = answers as [
    unknown,
    { result?: { tools?: unknown[] } },
    { result?: { content?: unknown[] } },
  ];
  const tools = listed.result?.tools?.length ?? 0;
  if (tools === 0) throw new Error(`tools/list: ${JSON.stringify(listed)}`);
  if (!called.result?.content) throw new Error(`tools/call team_roster: ${JSON.stringify(called)}`);
  const installed = path.join(prefix, "lib", "node_modules");
  const packages = readdirSync(installed, { recursive: true }).filter(
    (entry) =>
      String(entry).endsWith(`${path.sep}package.json`) &&
      !String(entry).includes(`dist${path.sep}`),
  ).length;
  return {
    summary: `npm install -g: ${packages} package(s), ${megabytes(statSync(tarball).size)} tarball, ${megabytes(bytesUnder(installed))} installed; muster ${version.stdout.trim()}, mcp serves ${tools} tools`,
  };
}
