// The SDK's side of the front's handover (see _stdio-front.ts): the SDK's own stdio transport,
// reading first what the front kept for it, and not sending on its answer to the replayed
// initialize (the front answered the engine already).
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Handover } from "./_stdio-front.js";

export class HandedOverTransport extends StdioServerTransport {
  readonly #input: Readable;
  readonly #replay: Buffer;
  /** Dropped once: after the replayed initialize's answer, a request id is the client's own. */
  #dropAnswerTo: string | undefined;

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
    if (this.#replay.length > 0) this.#input.unshift(this.#replay);
    await super.start();
    // The front paused stdin; a listener added after an explicit pause does not resume it.
    this.#input.resume();
  }

  override send(message: JSONRPCMessage) {
    const answer = "id" in message && !("method" in message);
    if (answer && this.#dropAnswerTo !== undefined && message.id === this.#dropAnswerTo) {
      this.#dropAnswerTo = undefined;
      return Promise.resolve();
    }
    return super.send(message);
  }
}
