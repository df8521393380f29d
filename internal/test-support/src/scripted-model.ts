// A scripted model server for driving real engines offline: the OpenAI Responses API as Codex
// speaks it (`POST /v1/responses`, answered as server-sent events). Each request that offers tools
// takes the next step of the script (a tool call or a text reply); a request without tools (Codex
// titling a thread) gets a short text and takes nothing. A step may wait for a promise before it
// answers, so a test can hold a turn in flight. Every request body is kept for asserts.
// Listens on 127.0.0.1 only.
import type { ServerResponse } from "node:http";
import { listenLocal, nextStep, offersTools, readJson, writeEvents } from "./scripted-server.ts";

export type ScriptStep = (
  | { call: { name: string; namespace?: string | undefined; arguments: Record<string, unknown> } }
  | { text: string }
) & {
  /** Answer only once this settles: the turn stays in flight until then. */
  after?: Promise<unknown>;
};

export type ScriptedModel = {
  /** `http://127.0.0.1:PORT/v1`, for a provider's base_url. */
  baseUrl: string;
  /** Every request body received, parsed. */
  requests: Record<string, unknown>[];
  /** When each request arrived (Date.now(), parallel to `requests`). */
  receivedAt: number[];
  /** Steps not yet taken. */
  script: ScriptStep[];
  close(): Promise<void>;
};

const DONE: ScriptStep = { text: "Done." };

let sequence = 0;
function nextId(prefix: string) {
  sequence += 1;
  return `${prefix}_${sequence.toString(36)}`;
}

function itemFor(step: ScriptStep) {
  if ("call" in step)
    return {
      type: "function_call",
      id: nextId("fc"),
      call_id: nextId("call"),
      name: step.call.name,
      ...(step.call.namespace ? { namespace: step.call.namespace } : {}),
      arguments: JSON.stringify(step.call.arguments),
      status: "completed",
    };
  return {
    type: "message",
    id: nextId("msg"),
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: step.text, annotations: [] }],
  };
}

function respond(response: ServerResponse, step: ScriptStep) {
  const id = nextId("resp");
  const item = itemFor(step);
  const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model: "mock" };
  const events: Record<string, unknown>[] = [
    { type: "response.created", response: { ...base, status: "in_progress", output: [] } },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, status: "in_progress" },
    },
    ...("text" in step
      ? [
          {
            type: "response.output_text.delta",
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            delta: step.text,
          },
        ]
      : []),
    { type: "response.output_item.done", output_index: 0, item },
    {
      type: "response.completed",
      response: {
        ...base,
        status: "completed",
        output: [item],
        usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
      },
    },
  ];
  writeEvents(response, events);
}

/** Start the server with a script; `close()` ends it. */
export async function startScriptedModel(script: ScriptStep[]): Promise<ScriptedModel> {
  const requests: Record<string, unknown>[] = [];
  const receivedAt: number[] = [];
  const pending = [...script];
  const server = await listenLocal(async (request, response) => {
    if (request.method !== "POST" || !request.url?.endsWith("/responses")) {
      response.writeHead(request.method === "HEAD" ? 200 : 404).end();
      return;
    }
    const arrived = Date.now();
    const parsed = await readJson(request);
    requests.push(parsed);
    receivedAt.push(arrived);
    const step = nextStep(pending, offersTools(parsed), DONE, { text: "Team chat" });
    if (step.after) await step.after;
    respond(response, step);
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    requests,
    receivedAt,
    script: pending,
    close: server.close,
  };
}
