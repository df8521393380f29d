// A scripted model server for driving a real Claude Code offline: the Anthropic Messages API as
// Claude Code speaks it (`POST /v1/messages`, streamed as server-sent events, or one JSON body when
// the request says `stream: false`). Each request that offers tools takes the next step of the
// script (a tool call or a text reply); a request without tools (Claude Code's side questions,
// such as naming the session) gets a short text and takes nothing. A step may wait for a promise
// before it answers, so a test can act while the turn is in flight. Every request body is kept
// for asserts. Listens on 127.0.0.1 only.
import type { IncomingMessage, ServerResponse } from "node:http";
import { listenLocal, nextStep, offersTools, readJson, writeEvents } from "./scripted-server.ts";

export type MessagesStep = (
  | { call: { name: string; arguments: Record<string, unknown> } }
  | { text: string }
) & {
  /** Answer only once this settles: the turn stays in flight until then. */
  after?: Promise<unknown>;
};

export type MessagesRequest = {
  /** When it arrived (`Date.now()`). */
  at: number;
  /** Whether it offered tools, so took a step of the script. */
  scripted: boolean;
  body: Record<string, unknown>;
};

export type ScriptedMessages = {
  /** `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL`. */
  baseUrl: string;
  /** Every `POST /v1/messages` received, parsed, in order. */
  requests: MessagesRequest[];
  /** Steps not yet taken; push more while the server runs. */
  script: MessagesStep[];
  close(): Promise<void>;
};

let sequence = 0;
function nextId(prefix: string) {
  sequence += 1;
  return `${prefix}_${Date.now().toString(36)}${sequence.toString(36)}`;
}

type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

const blockFor = (step: MessagesStep): Block =>
  "call" in step
    ? { type: "tool_use", id: nextId("toolu"), name: step.call.name, input: step.call.arguments }
    : { type: "text", text: step.text };

function message(block: Block, model: string) {
  return {
    id: nextId("msg"),
    type: "message",
    role: "assistant",
    model,
    content: [block],
    stop_reason: block.type === "tool_use" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

/** The SSE events of one message: start, one content block, delta, stop. */
function events(block: Block, model: string): Record<string, unknown>[] {
  const whole = message(block, model);
  const delta =
    block.type === "text"
      ? { type: "text_delta", text: block.text }
      : { type: "input_json_delta", partial_json: JSON.stringify(block.input) };
  return [
    { type: "message_start", message: { ...whole, content: [], stop_reason: null } },
    {
      type: "content_block_start",
      index: 0,
      content_block: block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} },
    },
    { type: "content_block_delta", index: 0, delta },
    { type: "content_block_stop", index: 0 },
    {
      type: "message_delta",
      delta: { stop_reason: whole.stop_reason, stop_sequence: null },
      usage: { output_tokens: 1 },
    },
    { type: "message_stop" },
  ];
}

function respond(response: ServerResponse, block: Block, body: Record<string, unknown>) {
  const model = typeof body.model === "string" ? body.model : "mock";
  if (body.stream !== true) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(message(block, model)));
    return;
  }
  writeEvents(response, events(block, model));
}

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  requests: MessagesRequest[],
  pending: MessagesStep[],
) {
  const url = new URL(request.url ?? "/", "http://localhost");
  if (request.method === "POST" && url.pathname === "/v1/messages/count_tokens") {
    await readJson(request);
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ input_tokens: 1 }));
    return;
  }
  if (request.method !== "POST" || url.pathname !== "/v1/messages") {
    // Claude Code's reachability probe is `HEAD /api/hello`; anything else is not served.
    response.writeHead(request.method === "HEAD" ? 200 : 404).end();
    return;
  }
  const body = await readJson(request);
  const scripted = offersTools(body);
  requests.push({ at: Date.now(), scripted, body });
  const step = nextStep<MessagesStep>(pending, scripted, { text: "Done." }, { text: "Team work" });
  if (step.after) await step.after;
  respond(response, blockFor(step), body);
}

/** Start the server with a script; `close()` ends it. */
export async function startScriptedMessages(script: MessagesStep[]): Promise<ScriptedMessages> {
  const requests: MessagesRequest[] = [];
  const pending = [...script];
  const server = await listenLocal((request, response) =>
    answer(request, response, requests, pending),
  );
  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    requests,
    script: pending,
    close: server.close,
  };
}
