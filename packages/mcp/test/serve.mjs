// The built server, as an engine would start it (`muster mcp` runs the same function).
const { runMcpServer } = await import("../dist/stdio.js");
await runMcpServer();
