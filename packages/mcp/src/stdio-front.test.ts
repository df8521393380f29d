// The front of `muster mcp`: what it answers before the SDK has loaded, and that everything else
// reaches the SDK byte for byte, in order. Streams are real Node streams; no SDK is loaded here.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { REPLAY_ID, type StartAnswers, startFront } from "./_stdio-front.ts";

const ANSWERS: StartAnswers = {
  initialize: {
    "2025-06-18": { protocolVersion: "2025-06-18", serverInfo: { name: "muster" } },
    "*": { protocolVersion: "2025-11-25", serverInfo: { name: "muster" } },
  },
  "tools/list": { tools: [{ name: "team_roster" }] },
};

const initialize = (id: unknown, protocolVersion = "2025-06-18", extra = {}) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "codex", version: "1" } },
    ...extra,
  });
const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
const toolsList = (id: unknown, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", ...(params ? { params } : {}) });

/** A front over a real stream; `answers: null` is a build that wrote none. */
function front(options: { answers?: StartAnswers | null; handoverAfterMs?: number } = {}) {
  const { answers = ANSWERS, handoverAfterMs = 60_000 } = options;
  const input = new PassThrough();
  const written: string[] = [];
  const handover = startFront({
    input,
    output: { write: (text: string) => written.push(text) },
    answers: answers ?? undefined,
    handoverAfterMs,
  });
  const answered = () =>
    written
      .join("")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  return { input, handover, answered };
}

describe("the front of muster mcp", () => {
  it("answers initialize and tools/list itself, then hands the initialize and the rest to the SDK", async () => {
    const { input, handover, answered } = front();
    input.write(`${initialize(1)}\n`);
    input.write(`${initialized}\n${toolsList(2)}\n`);
    const { replay, dropAnswerTo } = (await handover)!;
    expect(answered()).toEqual([
      { jsonrpc: "2.0", id: 1, result: ANSWERS.initialize["2025-06-18"] },
      { jsonrpc: "2.0", id: 2, result: ANSWERS["tools/list"] },
    ]);
    // The SDK learns the client from the initialize, under an id whose answer is not sent on.
    expect(dropAnswerTo).toBe(REPLAY_ID);
    expect(replay.toString()).toBe(`${initialize(REPLAY_ID)}\n${initialized}\n`);
    expect(input.isPaused()).toBe(true);
  });

  it("answers a protocol version the SDK does not support as the SDK does (its latest)", async () => {
    const { input, handover, answered } = front();
    input.write(`${initialize("a", "1999-01-01")}\n${toolsList("b")}\n`);
    await handover;
    expect(answered()[0]).toEqual({ jsonrpc: "2.0", id: "a", result: ANSWERS.initialize["*"] });
  });

  it("hands over at the first line it does not answer, with that line and the rest byte for byte", async () => {
    const { input, handover, answered } = front();
    const call = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"team_roster"}}';
    const later = `${toolsList(4)}\n{"half":`;
    input.write(`${initialize(1)}\n${call}\r\n${later}`);
    const { replay } = (await handover)!;
    expect(answered()).toHaveLength(1);
    // tools/list after the call is the SDK's too: answers go out in the order they were asked.
    expect(replay.toString()).toBe(`${initialize(REPLAY_ID)}\n${call}\r\n${later}`);
  });

  it.each([
    [
      "no clientInfo",
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}',
    ],
    ["a version that is not a string", initialize(1, 7 as unknown as string)],
    ["an id that is not a request id", initialize(1.5)],
    ["an id that is an object", initialize({ id: 1 })],
    ["no jsonrpc 2.0", initialize(1).replace('"2.0"', '"1.0"')],
    ["a line that is not JSON", '{"jsonrpc":"2.0","id":1,"method":"initialize"'],
    ["an array (a batch)", `[${initialize(1)}]`],
  ])("leaves an initialize with %s to the SDK, untouched", async (_name, line) => {
    const { input, handover, answered } = front();
    input.write(`${line}\n${toolsList(2)}\n`);
    const { replay, dropAnswerTo } = (await handover)!;
    expect(answered()).toEqual([]);
    expect(dropAnswerTo).toBeUndefined();
    expect(replay.toString()).toBe(`${line}\n${toolsList(2)}\n`);
  });

  it("leaves a second initialize, tools/list before initialize, and a page cursor to the SDK", async () => {
    for (const lines of [
      [initialize(1), initialize(2)],
      [toolsList(1), initialize(2)],
      [initialize(1), toolsList(2, { cursor: "next" })],
    ]) {
      const { input, handover, answered } = front();
      input.write(`${lines.join("\n")}\n`);
      const { replay } = (await handover)!;
      expect(answered().length).toBeLessThanOrEqual(1);
      expect(replay.toString()).toContain(`${lines[1]}\n`);
    }
  });

  it("hands over when the time is up, though nothing the SDK must answer was asked", async () => {
    const { input, handover, answered } = front({ handoverAfterMs: 20 });
    input.write(`${initialize(1)}\n`);
    const { replay } = (await handover)!;
    expect(answered()).toHaveLength(1);
    expect(replay.toString()).toBe(`${initialize(REPLAY_ID)}\n`);
  });

  it("serves nothing when stdin ends first (the engine went away)", async () => {
    const { input, handover } = front();
    input.write(`${initialize(1)}\n`);
    input.end();
    expect(await handover).toBeUndefined();
  });

  it("without start answers reads nothing and leaves everything to the SDK", async () => {
    const { input, handover, answered } = front({ answers: null });
    input.write(`${initialize(1)}\n`);
    expect(await handover).toEqual({ replay: Buffer.alloc(0) });
    expect(answered()).toEqual([]);
    expect(input.read()?.toString()).toBe(`${initialize(1)}\n`);
  });
});
