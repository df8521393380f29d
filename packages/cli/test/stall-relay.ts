// A loopback TCP relay in front of a nats-server that stalls part way through a connection: once
// `freezeAfter(bytes)` is set, each connection accepted from then on gets that many of the
// server's bytes and then nothing more (the client's bytes still reach the server), as a server
// or a route that stops answering in the middle of a command. `resume()` lets everything through.
import { createConnection, createServer, type Socket } from "node:net";

export type StallRelay = {
  /** The URL a member connects to. */
  url: string;
  /** Connections accepted from now on freeze after this many of the server's bytes. */
  freezeAfter(bytes: number): void;
  /** How many connections froze (got their bytes, then wanted more). */
  frozen(): number;
  /** The server's bytes relayed so far to every client. */
  served(): number;
  /** Relay everything held back, and freeze no more. */
  resume(): void;
  close(): Promise<void>;
};

type Held = { chunks: Buffer[]; client: Socket; frozen: boolean };

/** Relay a fresh loopback port to the server on `upstream`. */
export function startStallRelay(upstream: number): Promise<StallRelay> {
  let limit: number | undefined;
  let frozen = 0;
  let served = 0;
  const sockets = new Set<Socket>();
  const holds = new Set<Held>();
  const release = (held: Held) => {
    for (const chunk of held.chunks.splice(0)) held.client.write(chunk);
    held.frozen = false;
  };
  const listener = createServer((client) => {
    const server = createConnection(upstream, "127.0.0.1");
    const hold: Held = { chunks: [], client, frozen: false };
    let allowed = limit ?? Number.POSITIVE_INFINITY;
    holds.add(hold);
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.once("close", () => {
        sockets.delete(socket);
        holds.delete(hold);
      });
    }
    client.once("close", () => server.destroy());
    server.once("close", () => client.destroy());
    client.pipe(server);
    server.on("data", (chunk: Buffer) => {
      served += chunk.length;
      if (hold.frozen) return void hold.chunks.push(chunk);
      if (chunk.length <= allowed) {
        allowed -= chunk.length;
        return void client.write(chunk);
      }
      client.write(chunk.subarray(0, allowed));
      hold.chunks.push(chunk.subarray(allowed));
      hold.frozen = true;
      frozen += 1;
      allowed = Number.POSITIVE_INFINITY;
    });
  });
  return new Promise((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(0, "127.0.0.1", () => {
      const address = listener.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({
        url: `nats://127.0.0.1:${port}`,
        freezeAfter: (bytes) => {
          limit = bytes;
        },
        frozen: () => frozen,
        served: () => served,
        resume() {
          limit = undefined;
          for (const hold of holds) release(hold);
        },
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            listener.close(() => done());
          }),
      });
    });
  });
}
