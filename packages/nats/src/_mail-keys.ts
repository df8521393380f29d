// How the NATS store names mail in the team's bucket, and how large a message may be there once
// sealed. Owns the names and the size; not what a message means.
import { MAX_VALUE_BYTES } from "./_kv.js";

export const nameOf = (id: string) => `${id}.json`;
export const idOf = (name: string) => (name.endsWith(".json") ? name.slice(0, -5) : undefined);
export const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** An id that is a single key token, or a thrown error before it names a key. */
export function token(id: string): string {
  if (!ID.test(id))
    throw Object.assign(new Error(`"${id.slice(0, 40)}" is not an id`), { code: "EINVAL" });
  return id;
}

/** The key of message `id` of `member`'s in `state` (`unread`, `read`, `retired`, `aside`). */
export const mailKey = (state: string, member: string, id: string) =>
  `${state}.${token(member)}.${token(id)}`;
/** The message id a mail key names. */
export const idOfKey = (full: string) => full.split(".")[2] ?? "";

/**
 * What a value of mail may be: the bucket's limit, less room for the headers a write carries (the
 * server counts them in: a mark read at 512 KiB less a few bytes was refused).
 */
const MAIL_VALUE_BYTES = MAX_VALUE_BYTES - 1_024;

/** A number as a person reads it: 393,216. */
const counted = (bytes: number) => bytes.toLocaleString("en-US");

/**
 * Whether mail sealed as `sealed` and marked read as `marked` (the larger: it holds the sealed
 * value whole) fits in a value; else the error the send says, with the real limit for a body as
 * JSON: sealing writes the message as base64 (4 bytes for 3) under two signed headers, so a 64 KiB
 * body whose characters JSON escapes (a control character is 6 bytes) can be over.
 */
export function tooLarge(text: string, marked: string): Error | undefined {
  const size = Buffer.byteLength(marked);
  if (size <= MAIL_VALUE_BYTES) return undefined;
  const json = Buffer.byteLength(text);
  const box = marked.slice(marked.lastIndexOf("\n") + 1).length;
  const overhead = size - box;
  // The box is the message and 28 bytes (a nonce and a tag), as base64.
  const fits = Math.floor((MAIL_VALUE_BYTES - overhead) / 4) * 3 - 28;
  let body = 0;
  try {
    body = Buffer.byteLength(JSON.stringify((JSON.parse(text) as { body?: unknown }).body ?? ""));
  } catch {}
  const bodyFits = fits - (json - body);
  return Object.assign(
    new Error(
      `the message is too large for NATS once sealed (${counted(size)} bytes, over the ${counted(MAIL_VALUE_BYTES)} mail may be): it fits with a body of at most ${counted(bodyFits)} bytes as JSON (a control character is 6 bytes there, a quote or a backslash 2); this one is ${counted(body)}`,
    ),
    { code: "E2BIG" },
  );
}
