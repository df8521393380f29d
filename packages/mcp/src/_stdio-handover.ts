// The SDK's side of the front's handover (see _stdio-front.ts): the SDK's own stdio transport,
// reading first what the front kept for it, and not sending on its answer to the replayed
// initialize (the front answered the engine already). It knows which requests are still to be
// answered, so that the server's end writes their answers first (see _server.ts).
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Handover } from "./_stdio-front.js";

export class HandedOverTransport extends StdioServerTransport {
  readonly #input: Readable;
  readonly #replay: Buffer;
  /** Dropped once: after the replayed initialize's answer, a request id is the client's own. */
  #dropAnswerTo: string | undefined;
  /** Requests read and not answered yet, by id; and who waits for there being none. */
  readonly #unanswered = new Set<unknown>();
  #waiting: (() => void)[] = [];

  constructor(
    handover: Handover,
    input: Readable = process.stdin,
    output: Writable = process.stdout,
  ) {
    super(input, output);
    this.#input = input;
    this.#replay = handover.replay;
    this.#dropAnswerTo = handover.dropAnswerTo;
  }

  override async start() {
    // The SDK set its reader before it started the transport: each request is counted first.
    const read = this.onmessage;
    this.onmessage = (message) => {
      if ("method" in message && "id" in message) this.#unanswered.add(message.id);
      read?.(message);
    };
    if (this.#replay.length > 0) this.#input.unshift(this.#replay);
    await super.start();
    // The front paused stdin; a listener added after an explicit pause does not resume it.
    this.#input.resume();
  }

  override async send(message: JSONRPCMessage) {
    const answer = "id" in message && !("method" in message);
    if (answer && this.#dropAnswerTo !== undefined && message.id === this.#dropAnswerTo)
      this.#dropAnswerTo = undefined;
    else await super.send(message);
    if (answer && this.#unanswered.delete(message.id) && this.#unanswered.size === 0)
      for (const resolve of this.#waiting.splice(0)) resolve();
  }

  /** Every request read so far has been answered, its answer written (or taken by the pipe). */
  answered(): Promise<void> {
    if (this.#unanswered.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
}
