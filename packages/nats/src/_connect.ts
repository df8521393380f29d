// Connecting to the team's NATS server with its settings: the credentials file (a `.creds` file
// with a user JWT and nkey seed, or an nkey seed alone), TLS demanded by a `tls://` URL, and a
// refusal as a value — one line saying what happened and what to do — for every way it fails.
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { type Keys, keysOf, seedIn } from "./_keys.js";
import { inboxPrefixFor } from "./_server-config.js";
import type { NatsSettings } from "./_settings.js";
import { guardStalls } from "./_stall.js";

export type ConnectRefusal = "unreachable" | "unauthorised" | "no-tls" | "bad-credentials";

export type Connected =
  | { ok: true; connection: NatsConnection; seed: string }
  | { ok: false; reason: ConnectRefusal; error: string; fix: string };

export const CONNECT_FIXES: Record<ConnectRefusal, string> = {
  unreachable:
    "start the team's NATS server or check MUSTER_NATS; unset MUSTER_NATS to use this machine's team folder",
  unauthorised:
    "check MUSTER_NATS_CREDS: the server does not accept these credentials (ask the team's operator for yours)",
  "no-tls": "the URL is tls:// but the server offers no TLS: fix the server, or the URL",
  "bad-credentials":
    "set MUSTER_NATS_CREDS to a NATS credentials file (.creds, or an nkey seed starting SU)",
};

const CREDS_MAX_BYTES = 16 * 1024;

const USER_JWT = /-{3,}BEGIN NATS USER JWT-{3,}\s*\n\s*([A-Za-z0-9_.=-]+)\s*\n/;

/**
 * The authenticator for a credentials file's text (its user JWT, if any, and the seed's public key
 * and signature of the server's nonce), or undefined when it is neither kind. Signed with Node's
 * crypto (`keysOf`), not the client's own nkeys: that is tweetnacl in JavaScript, which made the
 * key pair from the seed for the public key and again for the signature, ~250 ms of a loaded
 * machine's CPU on every command's start.
 */
export function authenticatorFor(text: string) {
  const creds = text.includes("-----BEGIN NATS USER JWT-----");
  if (!creds && !/^SU[A-Z2-7]{56}$/.test(text.trim())) return undefined;
  const jwt = creds ? text.match(USER_JWT)?.[1] : "";
  const keys = keysIn(text);
  if (jwt === undefined || keys === undefined) return undefined;
  const encoder = new TextEncoder();
  return (nonce?: string) => ({
    ...(jwt ? { jwt } : {}),
    nkey: keys.sign,
    sig: nonce ? Buffer.from(keys.signBytes(encoder.encode(nonce))).toString("base64") : "",
  });
}

/** The keys of a credentials file's seed (a bare seed, or the one in a `.creds` file). */
function keysIn(text: string): Keys | undefined {
  const seed = seedIn(text);
  try {
    return seed === undefined ? undefined : keysOf(seed);
  } catch {
    return undefined;
  }
}

/** The public key of a credentials file's seed (a bare seed, or the one in a `.creds` file). */
export function publicKeyOf(text: string): string | undefined {
  return keysIn(text)?.sign;
}

/** A small regular file's text; a FIFO, a folder or a huge file is no credentials file. */
function readCreds(file: string): string | undefined {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const facts = fstatSync(descriptor);
    if (!facts.isFile() || facts.size > CREDS_MAX_BYTES) return undefined;
    return readFileSync(descriptor, "utf8");
  } catch {
    return undefined;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

const refuse = (reason: ConnectRefusal, error: string): Connected => ({
  ok: false,
  reason,
  error,
  fix: CONNECT_FIXES[reason],
});

/** What a server that stopped answering means, on the connect or part way through a command. */
const unanswered = (settings: NatsSettings) =>
  `the team's NATS server at ${settings.servers.join(", ")} did not answer in time`;

/** What a failed connect means, from the client's error. */
function refusalOf(error: unknown, settings: NatsSettings): Connected {
  const text = error instanceof Error ? error.message : String(error);
  const where = settings.servers.join(", ");
  // "Authentication Timeout" is a slow handshake (a loaded machine), not a refusal of the key.
  if (/timeout/i.test(text)) return refuse("unreachable", unanswered(settings));
  if (/authoriz|authentic|permission/i.test(text))
    return refuse("unauthorised", `the NATS server at ${where} refused the credentials`);
  if (/tls/i.test(text)) return refuse("no-tls", `the NATS server at ${where} offers no TLS`);
  return refuse("unreachable", `cannot reach the team's NATS server at ${where}`);
}

export type ConnectOptions = {
  /** How long to try before answering `unreachable` (default 5 s). */
  timeoutMs?: number | undefined;
  /** The client's name in the server's monitoring (e.g. `muster alice@host`). */
  name?: string | undefined;
  /** Keep reconnecting after a drop (default true; a one-shot command passes false). */
  reconnect?: boolean | undefined;
};

/** Connect with the team's settings; a refusal says what went wrong and what to do. */
export async function connectTeam(
  settings: NatsSettings,
  options: ConnectOptions = {},
): Promise<Connected> {
  const text = readCreds(settings.credsFile);
  if (text === undefined)
    return refuse("bad-credentials", `cannot read the credentials file ${settings.credsFile}`);
  const authenticator = authenticatorFor(text);
  const publicKey = publicKeyOf(text);
  const seed = seedIn(text);
  if (!authenticator || publicKey === undefined || seed === undefined)
    return refuse("bad-credentials", `${settings.credsFile} is not a NATS credentials file`);
  try {
    const connection = await connect({
      servers: settings.servers.map((server) => server.replace(/^tls:/, "nats:")),
      authenticator,
      // Replies come on the member's own prefix: the only inbox its permissions let it read.
      inboxPrefix: inboxPrefixFor(publicKey),
      ...(settings.tls ? { tls: {} } : {}),
      timeout: options.timeoutMs ?? 5_000,
      name: options.name,
      reconnect: options.reconnect ?? true,
      maxReconnectAttempts: -1,
      // A failed first attempt is answered now, not retried behind the caller's back.
      waitOnFirstConnect: false,
    });
    // Stalled part way through, the command's later requests fail at once, not one timeout each.
    guardStalls(connection, unanswered(settings));
    return { ok: true, connection, seed };
  } catch (error) {
    return refusalOf(error, settings);
  }
}
