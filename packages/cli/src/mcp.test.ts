// `muster mcp` from the built binary: it speaks MCP on stdin/stdout and ends when stdin closes.
// (The tools themselves are tested in @muster/mcp with the SDK's client.)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { lineQueue, tmuxEnv } from "@muster/test-support";
import { afterAll, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const scratch = mkdtempSync(path.join(tmpdir(), "muster-cli-mcp-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it("muster mcp answers initialize and lists the team tools, then exits 0 when stdin closes", async () => {
  const child = spawn(process.execPath, [MUSTER, "mcp"], {
    cwd: scratch,
    env: tmuxEnv({ HOME: scratch, MUSTER_TEAM_DIR: path.join(scratch, "team") }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  const lines = lineQueue(child.stdout);
  const ask = (id: number, method: string, params: unknown = {}) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  ask(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "test", version: "0" },
  });
  const initialized = JSON.parse(await lines.next());
  expect(initialized.result.serverInfo.name).toBe("muster");
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  ask(2, "tools/list");
  const listed = JSON.parse(await lines.next());
  expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual(
    expect.arrayContaining(["team_inbox", "team_roster", "team_send"]),
  );
  child.stdin.end();
  expect(await exited).toBe(0);
});
