// The server's shape as the package's types show it. The MCP SDK is bundled into this package's
// code, so a user has none of its types: these are the parts a caller uses, written structurally
// (the SDK's own transports and server fit them; server-shape.test-d.ts pins that).

/** A JSON-RPC 2.0 message as a transport carries it. */
export type JsonRpcMessage = { jsonrpc: "2.0"; [field: string]: unknown };

/**
 * A transport the server can be connected to: the SDK's stdio or in-memory one, or your own. (The
 * callbacks are methods, so the SDK's narrower message types fit them.)
 */
export type McpTransport = {
  start(): Promise<void>;
  send(message: JsonRpcMessage, options?: object): Promise<void>;
  close(): Promise<void>;
  onclose?(): void;
  onerror?(error: Error): void;
  onmessage?(message: JsonRpcMessage, extra?: object): void;
};

/** muster's MCP server, not yet connected: connect it to a transport, close it when done. */
export type MusterServer = {
  connect(transport: McpTransport): Promise<void>;
  close(): Promise<void>;
};
