// A member's keys on NATS: the nkey seed it connects with signs what it writes (Ed25519), and an
// xkey (an X25519 curve key, `X…`, as nkeys names one) derived from that seed opens what is sealed
// to it. One seed per person, so every member a person runs signs and opens with the same keys, on
// any host, with nothing more to keep. The bytes are Node's own crypto: nkeys' JavaScript Ed25519
// took ~40 ms a signature on a loaded machine, Node's takes well under one. A seal is X25519
// between the two members' xkeys, HKDF-SHA256, then AES-256-GCM bound to where the value is kept.
// Owns the bytes of signing and sealing; not which key may write which value (`_trust.ts`).
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  type KeyObject,
  randomBytes,
  sign as signWith,
  verify as verifyWith,
} from "node:crypto";

export type Keys = {
  /** The signing key's public half (`U…`): what a member's binding names. */
  sign: string;
  /** The sealing key's public half (`X…`). */
  seal: string;
  signBytes(input: Uint8Array): Uint8Array;
  /** `input` sealed to `recipient`'s xkey, bound to `place`. */
  sealTo(input: Uint8Array, recipient: string, place: string): Uint8Array;
  /** The opened bytes, or undefined when not sealed to this key by `sender` at `place`. */
  openFrom(input: Uint8Array, sender: string, place: string): Uint8Array | undefined;
};

const SEED = /SU[A-Z2-7]{56}/;

/** The nkey user seed in a credentials file's text (a seed alone, or a `.creds` file's). */
export function seedIn(text: string): string | undefined {
  return SEED.exec(text)?.[0];
}

/** CRC-16/XMODEM, as an nkey's checksum is. */
function crc16(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function base32(data: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of data) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function unbase32(text: string): Uint8Array | undefined {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    const digit = BASE32.indexOf(char);
    if (digit < 0) return undefined;
    value = ((value << 5) | digit) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

/** An nkey's 32 raw bytes, its prefix (`prefixBytes` long) and checksum checked; else undefined. */
function decodeKey(text: string, prefix: number[]): Uint8Array | undefined {
  const bytes = unbase32(text);
  if (!bytes || bytes.length !== prefix.length + 34) return undefined;
  if (prefix.some((byte, index) => bytes[index] !== byte)) return undefined;
  const body = bytes.subarray(0, bytes.length - 2);
  const sum = (bytes[bytes.length - 2] ?? 0) | ((bytes[bytes.length - 1] ?? 0) << 8);
  return crc16(body) === sum ? bytes.slice(prefix.length, prefix.length + 32) : undefined;
}

/** An nkey public key of one byte `prefix` over 32 raw bytes, as nkeys encodes one. */
function encodeKey(prefix: number, raw: Uint8Array): string {
  const bytes = new Uint8Array(35);
  bytes[0] = prefix;
  bytes.set(raw, 1);
  const sum = crc16(bytes.subarray(0, 33));
  bytes[33] = sum & 0xff;
  bytes[34] = sum >> 8;
  return base32(bytes);
}

const USER = 20 << 3; // nkeys' Prefix.User: `U…`
const CURVE = 23 << 3; // nkeys' Prefix.Curve: `X…`
const SEED_USER = [(18 << 3) | (USER >> 5), (USER & 31) << 3]; // `SU…`
const ED25519_PKCS8 = Buffer.from("302e020100300506032b657004220420", "hex");
const ED25519_SPKI = Buffer.from("302a300506032b6570032100", "hex");
const X25519_PKCS8 = Buffer.from("302e020100300506032b656e04220420", "hex");
const X25519_SPKI = Buffer.from("302a300506032b656e032100", "hex");

const der = (prefix: Buffer, raw: Uint8Array) => Buffer.concat([prefix, raw]);
const rawPublic = (key: KeyObject) =>
  new Uint8Array(key.export({ format: "der", type: "spki" }).subarray(-32));

const publicKeys = new Map<string, KeyObject | undefined>();
/** A public key object of an nkey (`U…` or `X…`), cached; undefined for a malformed one. */
function publicOf(text: string, prefix: number, spki: Buffer): KeyObject | undefined {
  const cached = publicKeys.get(text);
  if (cached !== undefined || publicKeys.has(text)) return cached;
  const raw = decodeKey(text, [prefix]);
  const key = raw && createPublicKey({ key: der(spki, raw), format: "der", type: "spki" });
  if (publicKeys.size > 1_000) publicKeys.clear();
  publicKeys.set(text, key);
  return key;
}

/** The keys of a member connecting with `seed` (an nkey user seed, `SU…`). */
export function keysOf(seed: string): Keys {
  const raw = decodeKey(seed, SEED_USER);
  if (!raw) throw Object.assign(new Error("not an nkey user seed"), { code: "EINVAL" });
  const signer = createPrivateKey({ key: der(ED25519_PKCS8, raw), format: "der", type: "pkcs8" });
  const curveRaw = createHash("sha256").update("muster xkey v1\0").update(raw).digest();
  const curve = createPrivateKey({
    key: der(X25519_PKCS8, curveRaw),
    format: "der",
    type: "pkcs8",
  });
  const shared = new Map<string, Buffer>();
  const secretWith = (peer: string): Buffer | undefined => {
    const known = shared.get(peer);
    if (known) return known;
    const publicKey = publicOf(peer, CURVE, X25519_SPKI);
    if (!publicKey) return undefined;
    const secret = diffieHellman({ privateKey: curve, publicKey });
    const key = Buffer.from(hkdfSync("sha256", secret, "", "muster seal v1", 32));
    shared.set(peer, key);
    return key;
  };
  return {
    sign: encodeKey(USER, rawPublic(createPublicKey(signer))),
    seal: encodeKey(CURVE, rawPublic(createPublicKey(curve))),
    signBytes: (input) => new Uint8Array(signWith(null, input, signer)),
    sealTo(input, recipient, place) {
      const key = secretWith(recipient);
      if (!key) throw Object.assign(new Error("not an xkey"), { code: "EINVAL" });
      const nonce = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, nonce).setAAD(Buffer.from(place));
      const body = Buffer.concat([cipher.update(input), cipher.final()]);
      return new Uint8Array(Buffer.concat([nonce, body, cipher.getAuthTag()]));
    },
    openFrom(input, sender, place) {
      const key = secretWith(sender);
      if (!key || input.length < 28) return undefined;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, input.subarray(0, 12));
        decipher.setAAD(Buffer.from(place)).setAuthTag(input.subarray(input.length - 16));
        return new Uint8Array(
          Buffer.concat([decipher.update(input.subarray(12, input.length - 16)), decipher.final()]),
        );
      } catch {
        return undefined;
      }
    },
  };
}

/** Whether `signature` is `publicKey`'s (`U…`) over `input`; false for anything malformed. */
export function verifies(publicKey: string, input: Uint8Array, signature: Uint8Array): boolean {
  const key = publicOf(publicKey, USER, ED25519_SPKI);
  try {
    return key !== undefined && signature.length === 64 && verifyWith(null, input, key, signature);
  } catch {
    return false;
  }
}
