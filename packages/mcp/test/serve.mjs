// The built server, as an engine would start it (`muster mcp` runs the same function).
const { runMcpServer } = await import("../dist/index.js");
await runMcpServer();
