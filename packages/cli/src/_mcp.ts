// `muster mcp`: the team's tools as a stdio MCP server for Codex, Claude Code and other engines.
// The server lives in @muster/mcp and is imported only here, so no other command loads the SDK;
// its stdio entry answers the engine's first requests before it loads the SDK at all.
import type { Context } from "./_context.js";

export async function mcpCommand(context: Context) {
  const { runMcpServer } = await import("@muster/mcp/stdio");
  await runMcpServer({ env: context.io.env, cwd: context.io.cwd, target: context.target });
}

/** `muster mcp --help`'s list of the tools the server serves, read from the server's own table. */
export async function mcpToolsHelp(): Promise<string[]> {
  const { MCP_TOOLS } = await import("@muster/mcp");
  const width = Math.max(...MCP_TOOLS.map((tool) => tool.name.length));
  return [
    "",
    `Tools (${MCP_TOOLS.length}):`,
    ...MCP_TOOLS.map((tool) => `  ${tool.name.padEnd(width)}  ${tool.title}`),
  ];
}
