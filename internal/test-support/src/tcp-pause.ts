// A loopback TCP relay in front of a server (a nats-server), for the tests of what a client does
// while its server is slow: `pause()` stops every byte both ways and holds each new connection
// accepted but unanswered (a server that accepts the TCP connection and says nothing), `resume()`
// lets everything through again. Nothing of the protocol is known here: bytes are relayed as they are.
import { createConnection, createServer, type Server, type Socket } from "node:net";

export type TcpPause = {
  /** `127.0.0.1:<port>` clients connect to. */
  port: number;
  /** Connections accepted while paused and not relayed yet. */
  held(): number;
  /** Every connection ever accepted. */
  accepted(): number;
  /** Bytes relayed so far from clients to the server. */
  relayed(): number;
  pause(): void;
  resume(): void;
  /** End every connection and stop listening. */
  close(): Promise<void>;
};

/** Relay `127.0.0.1:<port>` to `127.0.0.1:<upstream>`, pausable. */
export function startTcpPause(upstream: number): Promise<TcpPause> {
  let paused = false;
  let accepted = 0;
  let relayed = 0;
  const sockets = new Set<Socket>();
  const waiting: (() => void)[] = [];
  const relay = (client: Socket) => {
    const server = createConnection(upstream, "127.0.0.1");
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.on("data", (chunk: Buffer) => {
      relayed += chunk.length;
    });
    client.pipe(server);
    server.pipe(client);
    client.once("close", () => server.destroy());
    server.once("close", () => client.destroy());
    if (paused) {
      client.pause();
      server.pause();
    }
  };
  const listener: Server = createServer((client) => {
    accepted += 1;
    client.on("error", () => undefined);
    sockets.add(client);
    client.once("close", () => sockets.delete(client));
    if (!paused) return relay(client);
    // Held: accepted, nothing read from it or sent to it, until resume().
    client.pause();
    waiting.push(() => relay(client));
  });
  return new Promise((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(0, "127.0.0.1", () => {
      const address = listener.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({
        port,
        held: () => waiting.length,
        accepted: () => accepted,
        relayed: () => relayed,
        pause() {
          paused = true;
          for (const socket of sockets) socket.pause();
        },
        resume() {
          paused = false;
          for (const socket of sockets) socket.resume();
          for (const start of waiting.splice(0)) start();
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
