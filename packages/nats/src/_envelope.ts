// A value as it is kept in a team's bucket: one header line, then the payload. The header names
// who signed it and as whom, and carries the signature over where it is kept and what it holds, so
// a value copied to another key, altered, or written by another key is seen for what it is.
//
//   muster1 <kind> <signer U…> <as member or -> <sealer X… or -> <signature, base64url>
//   <payload>
//
// Kinds: `s` signed (the payload is the text), `x` sealed to the recipient's xkey (the payload is
// the box, base64), `r` mail marked read (the payload is the mail's own value, `x`, as delivered).
// Owns the bytes; which key may write which value is `_trust.ts`.
import { type Keys, verifies } from "./_keys.js";

export type Kind = "s" | "x" | "r";
export type Envelope = {
  kind: Kind;
  signer: string;
  as: string | undefined;
  sealer: string | undefined;
  payload: string;
};

const MAGIC = "muster1";
const encoder = new TextEncoder();
const TOKEN = /^[A-Za-z0-9_-]{1,140}$/;

/** What is signed: the place a value is kept, and every field of its header. */
const signed = (
  place: string,
  kind: Kind,
  signer: string,
  as: string,
  sealer: string,
  payload: string,
) => encoder.encode([MAGIC, place, kind, signer, as, sealer, payload].join("\n"));

/** The value `keys` writes at `place`; `as`: the member it writes as, where the payload hides it. */
export function envelope(
  keys: Keys,
  place: string,
  kind: Kind,
  payload: string,
  options: { as?: string | undefined; sealer?: string | undefined } = {},
): string {
  const as = options.as !== undefined && TOKEN.test(options.as) ? options.as : "-";
  const sealer = options.sealer ?? "-";
  const signature = keys.signBytes(signed(place, kind, keys.sign, as, sealer, payload));
  const sig = Buffer.from(signature).toString("base64url");
  return `${MAGIC} ${kind} ${keys.sign} ${as} ${sealer} ${sig}\n${payload}`;
}

/** The envelope kept at `place`, its signature checked; or why it is none. */
export function opened(place: string, value: string): Envelope | { refused: string } {
  const newline = value.indexOf("\n");
  const header = (newline < 0 ? value : value.slice(0, newline)).split(" ");
  if (newline < 0 || header.length !== 6 || header[0] !== MAGIC)
    return { refused: "is not signed by any member" };
  const [, kind = "", signer = "", as = "", sealer = "", sig = ""] = header;
  const payload = value.slice(newline + 1);
  if (kind !== "s" && kind !== "x" && kind !== "r") return { refused: "is of no known kind" };
  const signature = Buffer.from(sig, "base64url");
  if (!verifies(signer, signed(place, kind, signer, as, sealer, payload), signature))
    return {
      refused: "has a signature that does not verify (altered, or copied from another key)",
    };
  return {
    kind,
    signer,
    as: as === "-" ? undefined : as,
    sealer: sealer === "-" ? undefined : sealer,
    payload,
  };
}

/** A short name for a key in a line a person reads: `UABC…WXYZ`. */
export const shortKey = (key: string) => `${key.slice(0, 5)}…${key.slice(-4)}`;

/**
 * The key a value's header names as its signer, unchecked (a glance, for counting what one key
 * wrote before anything is verified); undefined for a value with no header.
 */
export function claimedSigner(value: string): string | undefined {
  const header = value.slice(0, Math.min(value.length, 512)).split("\n", 1)[0]?.split(" ") ?? [];
  return header.length === 6 && header[0] === MAGIC ? header[2] : undefined;
}

/** How much text a store's memo of opened values keeps (UTF-16 units) before it starts afresh. */
const OPENED_MEMO_CHARS = 8_000_000;

/**
 * `opened`, remembering each place's last value and what opening it found: a value is checked
 * once, not again by each reader of one listing (a roster read's records were verified twice,
 * by the read and by its label checks). Sound as a memo: what `opened` finds is a function of the
 * place and the whole value, compared whole; any other value at the place is verified afresh.
 */
export function openedOnce(): typeof opened {
  const memo = new Map<string, { value: string; envelope: ReturnType<typeof opened> }>();
  let chars = 0;
  return (place, value) => {
    const known = memo.get(place);
    if (known !== undefined && known.value === value) return known.envelope;
    const envelope = opened(place, value);
    if (chars + value.length > OPENED_MEMO_CHARS) {
      memo.clear();
      chars = 0;
    } else chars -= known?.value.length ?? 0;
    chars += value.length;
    memo.set(place, { value, envelope });
    return envelope;
  };
}
