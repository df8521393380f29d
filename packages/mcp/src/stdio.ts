export type { MusterServerOptions } from "./_server.js";
export { runMcpServer } from "./_stdio-run.js";
