// The front of `muster mcp` on stdin/stdout: it answers the two requests an engine waits on before
// it offers the tools (initialize, then tools/list) from the start answers written at build time,
// so that no engine waits for the MCP SDK and zod to load (Codex gives a starting server about
// 1 s). Then it hands the connection to the SDK's own stdio transport, with everything the SDK
// must still read, in order: the initialize again (under a private id, its answer dropped, so the
// server learns the client's name and capabilities), then every line the front did not answer.
// The front answers only what it can answer exactly as the SDK would; anything else goes to the SDK.
import { readFileSync } from "node:fs";

/** What the built server answers at start: initialize per protocol version asked, and tools/list. */
export type StartAnswers = {
  /** The initialize result for each protocol version the SDK supports, and `*` for any other. */
  initialize: Record<string, unknown>;
  "tools/list": unknown;
};

/** The request id the replayed initialize carries; the SDK's answer to it is not sent on. */
export const REPLAY_ID = "muster-front-initialize";

/**
 * Where the SDK takes over: the bytes it must read first (stdin is paused until it reads them), and
 * the id of the replayed initialize whose answer is not sent on, when the front answered one.
 */
export type Handover = { replay: Buffer; dropAnswerTo?: string };

/** The start answers beside the built code, or undefined (then the SDK answers everything). */
export function readStartAnswers(url: URL): StartAnswers | undefined {
  try {
    const answers = JSON.parse(readFileSync(url, "utf8")) as Partial<StartAnswers>;
    return answers.initialize && answers["tools/list"] ? (answers as StartAnswers) : undefined;
  } catch {
    return undefined;
  }
}

type Message = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A JSON-RPC request id as the SDK accepts one: a string or an integer. */
const isRequestId = (id: unknown) => typeof id === "string" || Number.isInteger(id);

function parseLine(line: Buffer): Message | undefined {
  try {
    const message: unknown = JSON.parse(line.toString("utf8"));
    return isRecord(message) && message.jsonrpc === "2.0" ? message : undefined;
  } catch {
    return undefined;
  }
}

/** An initialize request with every field the SDK's schema requires, of the right type. */
function initializeParams(message: Message) {
  const params = message.params;
  if (message.method !== "initialize" || !isRequestId(message.id) || !isRecord(params)) return;
  const { protocolVersion, capabilities, clientInfo } = params;
  if (typeof protocolVersion !== "string" || !isRecord(capabilities) || !isRecord(clientInfo))
    return;
  if (typeof clientInfo.name !== "string" || typeof clientInfo.version !== "string") return;
  return { protocolVersion };
}

/** tools/list for the first page (a cursor is the SDK's to read). */
const isToolsList = (message: Message) =>
  message.method === "tools/list" &&
  isRequestId(message.id) &&
  (message.params === undefined ||
    (isRecord(message.params) && message.params.cursor === undefined));

export type FrontOptions = {
  input: NodeJS.ReadableStream;
  output: { write(text: string): unknown };
  answers: StartAnswers | undefined;
  /** Hand over this long after the start even if the engine asked nothing the SDK must answer. */
  handoverAfterMs: number;
};

/**
 * Read stdin, answering initialize and tools/list, until the SDK is needed: a line the front does
 * not answer, tools/list answered, or the time given. Resolves with what the SDK must read first,
 * stdin paused; or undefined when stdin ended first (the engine went away: nothing to serve).
 */
export function startFront(options: FrontOptions): Promise<Handover | undefined> {
  const { input, output, answers } = options;
  if (!answers) return Promise.resolve({ replay: Buffer.alloc(0) });
  return new Promise((resolve) => {
    const kept: Buffer[] = [];
    let partial = Buffer.alloc(0);
    let initialized = false;
    let settled = false;
    const settle = (handover: Handover | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      input.pause();
      input.off("data", onData);
      input.off("end", onEnd);
      input.off("error", onEnd);
      resolve(
        handover && {
          replay: Buffer.concat([...kept, partial]),
          ...(initialized && { dropAnswerTo: REPLAY_ID }),
        },
      );
    };
    const reply = (id: unknown, result: unknown) =>
      output.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`);
    /** Answer one line if the front can; true when the SDK is needed now. */
    const take = (line: Buffer): boolean => {
      const message = parseLine(line);
      const initialize = message && !initialized ? initializeParams(message) : undefined;
      if (message && initialize) {
        initialized = true;
        reply(
          message.id,
          answers.initialize[initialize.protocolVersion] ?? answers.initialize["*"],
        );
        kept.push(Buffer.from(`${JSON.stringify({ ...message, id: REPLAY_ID })}\n`));
        return false;
      }
      if (message && initialized && isToolsList(message)) {
        reply(message.id, answers["tools/list"]);
        return true;
      }
      kept.push(line);
      // The client's notice that it has the answer asks for nothing: the SDK reads it later.
      return !(
        initialized &&
        message?.method === "notifications/initialized" &&
        !("id" in message)
      );
    };
    const onData = (chunk: Buffer | string) => {
      let buffer = Buffer.concat([partial, Buffer.from(chunk)]);
      let needed = false;
      for (let end = buffer.indexOf(10); end >= 0 && !needed; end = buffer.indexOf(10)) {
        needed = take(buffer.subarray(0, end + 1));
        buffer = buffer.subarray(end + 1);
      }
      partial = buffer;
      if (needed) settle({ replay: Buffer.alloc(0) });
    };
    const onEnd = () => settle(undefined);
    const timer = setTimeout(() => settle({ replay: Buffer.alloc(0) }), options.handoverAfterMs);
    input.on("data", onData);
    input.once("end", onEnd);
    input.once("error", onEnd);
  });
}
