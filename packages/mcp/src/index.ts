export { threadOf } from "./_identity.js";
export type { MusterServerOptions } from "./_server.js";
export { createMusterServer } from "./_server.js";
export type { JsonRpcMessage, McpTransport, MusterServer } from "./_server-shape.js";
export { runMcpServer } from "./_stdio-run.js";
export type { McpToolRow } from "./_tools.js";
export { MCP_TOOLS } from "./_tools.js";
