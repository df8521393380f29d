// The package's structural server types fit the SDK's own: a user's SDK transport connects to
// muster's server, and the server the SDK builds is what createMusterServer says it returns.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { describe, expectTypeOf, it } from "vitest";
import type { McpTransport, MusterServer } from "./_server-shape.ts";

describe("the server's shape", () => {
  it("takes the SDK's transports and is what the SDK builds", () => {
    expectTypeOf<StdioServerTransport>().toMatchTypeOf<McpTransport>();
    expectTypeOf<Transport>().toMatchTypeOf<McpTransport>();
    expectTypeOf<McpServer>().toMatchTypeOf<MusterServer>();
    // Half a transport is none: the check can fail.
    expectTypeOf<{ start(): Promise<void> }>().not.toMatchTypeOf<McpTransport>();
  });
});
