// The SDK's side of the handover: the real server reads the replay first, its answer to the
// replayed initialize is not sent on (the front answered it), and after that every answer is.
import { PassThrough } from "node:stream";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { createMusterServer } from "./_server.ts";
import { REPLAY_ID } from "./_stdio-front.ts";
import { HandedOverTransport } from "./_stdio-handover.ts";

const line = (message: object) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`;

describe("the SDK after the front's handover", () => {
  it("drops only its answer to the replay, once: a client's own request under that id is answered", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const replay = line({
      id: REPLAY_ID,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "codex", version: "1" },
      },
    });
    input.pause();
    const server = createMusterServer({ env: {}, cwd: process.cwd() });
    const transport = new HandedOverTransport(
      { replay: Buffer.from(replay), dropAnswerTo: REPLAY_ID },
      input,
      output,
    );
    await server.connect(transport);
    input.write(line({ id: REPLAY_ID, method: "ping" }));
    input.write(line({ id: 7, method: "ping" }));
    const answers: unknown[] = [];
    output.setEncoding("utf8").on("data", (chunk: string) => {
      for (const text of chunk.split("\n").filter(Boolean)) answers.push(JSON.parse(text));
    });
    for (let turn = 0; turn < 200 && answers.length < 2; turn += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await server.close();
    expect(answers).toEqual([
      { jsonrpc: "2.0", id: REPLAY_ID, result: {} },
      { jsonrpc: "2.0", id: 7, result: {} },
    ]);
    expect((server as McpServer).server.getClientVersion()).toEqual({
      name: "codex",
      version: "1",
    });
  });
});
