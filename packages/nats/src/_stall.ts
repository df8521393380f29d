// A connection whose server stopped answering part way through (a frozen host, a half-open route):
// once a request goes unanswered, the server is asked for a PONG; none within `PONG_MS` and the
// connection is stalled: every request in flight fails at once, and so does each later one, with
// the error that says so, until the server answers a PING again or the client reconnects. A
// request that timed out on a server that still answers (a cluster placing a consumer on a node
// that is down, a listing's late consumer left in the background) leaves the connection as it
// was, and so does one lost while the client knows it is reconnecting (its own retry's business).
import { errors, type NatsConnection } from "@nats-io/transport-node";

/** How long a server that let a request go unanswered has to answer a PING. */
export const PONG_MS = 2_000;

type Guard = { failed(error: unknown): Promise<unknown> };

const guards = new WeakMap<NatsConnection, Guard>();

/** Whether the server answers a PING within `ms`; false too once the connection is closed. */
async function answers(connection: NatsConnection, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const pong = connection.flush().then(
    () => true,
    () => false,
  );
  return Promise.race([pong, late]).finally(() => clearTimeout(timer));
}

/**
 * Guard `connection`: once its server has let a request go unanswered and then answered no PING
 * either, its requests fail with an error of `message` (code `ESTALLED`).
 */
export function guardStalls(connection: NatsConnection, message: string): void {
  const request = connection.request.bind(connection);
  const inFlight = new Set<(error: Error) => void>();
  const stalledError = () => Object.assign(new Error(message), { code: "ESTALLED" });
  let stalled = false;
  let reconnecting = false;
  let probing: Promise<boolean> | undefined;
  let recovering: Promise<void> | undefined;
  // Stalled until a PING is answered at last (one at a time, asked again by the next request).
  const recover = () => {
    if (recovering) return;
    recovering = connection
      .flush()
      .then(() => {
        stalled = false;
      })
      .catch(() => undefined)
      .finally(() => {
        recovering = undefined;
      });
  };
  const declare = () => {
    stalled = true;
    for (const fail of inFlight) fail(stalledError());
    inFlight.clear();
    recover();
  };
  const probe = () => {
    probing ??= answers(connection, PONG_MS).then((answered) => {
      probing = undefined;
      const stall = !answered && !reconnecting && !connection.isClosed();
      if (stall) declare();
      return stall;
    });
    return probing;
  };
  const failed = async (error: unknown) => {
    if (stalled) return stalledError();
    if (!(error instanceof errors.TimeoutError) || reconnecting) return error;
    return (await probe()) ? stalledError() : error;
  };
  guards.set(connection, { failed });
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === "disconnect") reconnecting = true;
      if (status.type === "reconnect") reconnecting = stalled = false;
    }
  })().catch(() => undefined);
  connection.request = (subject, payload, options) => {
    if (stalled) {
      recover();
      return Promise.reject(stalledError());
    }
    return new Promise((resolve, reject) => {
      inFlight.add(reject);
      request(subject, payload, options)
        .then(resolve, async (error: unknown) => reject(await failed(error)))
        .finally(() => inFlight.delete(reject));
    });
  };
}

/**
 * What a failure on `connection` that was no request's (a fetch's missed heartbeats) means: the
 * stalled error when the server answers no PING either, else the failure as it was.
 */
export async function stalledOr(connection: NatsConnection, error: unknown): Promise<unknown> {
  const guard = guards.get(connection);
  if (!guard) return error;
  const found = await guard.failed(new errors.TimeoutError({ cause: error }));
  return found instanceof errors.TimeoutError ? error : found;
}
