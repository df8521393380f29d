// The MCP client's first three lines, as Codex and Claude Code send them: what the benchmarks and
// the installed CLI's check say to `muster mcp` before they ask it anything else.

/** initialize, notifications/initialized and tools/list (id 2), as JSON-RPC objects. */
export const MCP_HANDSHAKE = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "muster-tools", version: "0" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list" },
] as const;
