// `muster mcp`'s start: the front answers initialize and tools/list at once (see _stdio-front.ts),
// and only then are the MCP SDK, zod and the tools loaded, to serve the rest of the connection.
// This file imports nothing of the SDK: importing it costs a bare Node start and no more.

import type { MusterServerOptions } from "./_server.js";
import { readStartAnswers, startFront } from "./_stdio-front.js";

/** Written by the build beside the code (tsup.config.ts); without it the SDK answers everything. */
const START_ANSWERS = new URL("./start-answers.json", import.meta.url);

/** Serve on stdin/stdout until the client closes the connection; wake idle Codex members meanwhile. */
export async function runMcpServer(options: MusterServerOptions = {}): Promise<void> {
  // The answers name the default server version; another version is the SDK's to announce.
  const answers = options.version === undefined ? readStartAnswers(START_ANSWERS) : undefined;
  const handover = await startFront({
    input: process.stdin,
    output: process.stdout,
    answers,
    handoverAfterMs: 200,
  });
  if (!handover) return;
  const [{ serveMcp }, { HandedOverTransport }] = await Promise.all([
    import("./_server.js"),
    import("./_stdio-handover.js"),
  ]);
  await serveMcp(new HandedOverTransport(handover), options);
}
