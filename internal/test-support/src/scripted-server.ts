// What the two scripted model servers share: a local HTTP server, a request body read as JSON, the
// rule that a request offering tools takes a step of the script, and server-sent events written
// out. Each server keeps its own API's shapes (Responses for Codex, Messages for Claude Code).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request body parsed as JSON; `{}` when it is not JSON. */
export async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Whether a request offers tools: only those take a step of the script. */
export const offersTools = (body: Record<string, unknown>) =>
  Array.isArray(body.tools) && body.tools.length > 0;

/** Take the next step for a request that offers tools; the others get `aside` and take nothing. */
export function nextStep<Step>(pending: Step[], scripted: boolean, done: Step, aside: Step): Step {
  return scripted ? (pending.shift() ?? done) : aside;
}

/** Answer with server-sent events, one `event:`/`data:` pair each, then end. */
export function writeEvents(response: ServerResponse, events: readonly Record<string, unknown>[]) {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events)
    response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  response.end();
}

/** Listen on 127.0.0.1 at a free port; a handler that throws answers 500. */
export async function listenLocal(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
