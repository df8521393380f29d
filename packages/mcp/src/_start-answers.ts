// The start answers (see _stdio-front.ts), asked of the real server: initialize once for every
// protocol version the SDK supports and once for a version it does not know, then tools/list.
// The build writes them beside the code (tsup.config.ts); a test compares them with the source.
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type JSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type { StartAnswers } from "./_stdio-front.js";

/** A version no SDK supports: what the server answers to any version it does not know. */
const UNKNOWN_VERSION = "0000-00-00";

export async function startAnswers(server: {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}): Promise<StartAnswers> {
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const results = new Map<unknown, unknown>();
  client.onmessage = (message: JSONRPCMessage) => {
    if ("id" in message && "result" in message) results.set(message.id, message.result);
  };
  await server.connect(serverSide);
  await client.start();
  const versions = [...SUPPORTED_PROTOCOL_VERSIONS, UNKNOWN_VERSION];
  let id = 0;
  const ask = async (method: string, params?: Record<string, unknown>) => {
    id += 1;
    const asked = id;
    await client.send({ jsonrpc: "2.0", id: asked, method, ...(params && { params }) });
    for (let turn = 0; turn < 100 && !results.has(asked); turn += 1)
      await new Promise((resolve) => setImmediate(resolve));
    if (!results.has(asked)) throw new Error(`the server did not answer ${method}`);
    return results.get(asked);
  };
  const initialize: Record<string, unknown> = {};
  for (const version of versions) {
    const params = {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "muster-build", version: "0" },
    };
    initialize[version === UNKNOWN_VERSION ? "*" : version] = await ask("initialize", params);
  }
  const tools = await ask("tools/list");
  await server.close();
  return { initialize, "tools/list": tools };
}
