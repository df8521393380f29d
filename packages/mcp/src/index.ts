export { threadOf } from "./_identity.js";
export type { MusterServerOptions } from "./_server.js";
export { createMusterServer, runMcpServer } from "./_server.js";
