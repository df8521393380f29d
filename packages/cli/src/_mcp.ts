// `muster mcp`: the team's tools as a stdio MCP server for Codex, Claude Code and other engines.
// The server lives in @muster/mcp and is imported only here, so no other command loads the SDK.
import type { Context } from "./_context.js";

export async function mcpCommand(context: Context) {
  const { runMcpServer } = await import("@muster/mcp");
  await runMcpServer({ env: context.io.env, cwd: context.io.cwd, target: context.target });
}
