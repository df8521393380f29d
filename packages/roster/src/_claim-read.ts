// A claim as the store keeps it: its shape, its key, and reading it back, parsed as hostile (a
// value another process wrote). Taking, taking over and releasing are `_claim.ts` and
// `_claim-release.ts`.
import type { ClaimSpace } from "./_layout.js";
import { isObject, isTime, type Parsed, parseJson } from "./_record.js";
import type { Stored } from "./_store.js";
import type { Team } from "./_team.js";
import { validateId, validateKey } from "./_validate.js";

export type Claim = {
  v: 1;
  /** The key as the holder asked for it; claims compare keys case-insensitively. */
  key: string;
  /** Who holds it: a session id. */
  holder: string;
  /** When it was taken. */
  at: string;
  /** Unique per take: compare-then-remove compares it. */
  token: string;
  /** Whatever the space keeps with a claim (a card's title, a lease's paths). */
  data?: Record<string, unknown> | undefined;
};

/** The key a claim is filed under: keys compare case-insensitively. */
export const claimKey = (key: string) => key.toLowerCase();

export function parseClaim(text: string): Parsed<Claim> {
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  // Claims written before the general claim named the holder `id` and the key `label`.
  const key = value.key ?? value.label;
  const holder = value.holder ?? value.id;
  const token = value.token ?? value.at;
  if (
    typeof key !== "string" ||
    typeof holder !== "string" ||
    // A name read from a file, used as a key and a path (its record, its mailbox): never a path.
    !validateId(holder).ok ||
    typeof token !== "string" ||
    !isTime(value.at) ||
    (value.data !== undefined && !isObject(value.data))
  ) {
    return { ok: false, error: "is missing fields a claim needs" };
  }
  return {
    ok: true,
    value: { v: 1, key, holder, at: value.at, token, data: value.data as Claim["data"] },
  };
}

/** Whether a value is junk, not a claim: what may be set aside (quarantined) in its place. */
export const notAClaim = (text: string | undefined) => text === undefined || !parseClaim(text).ok;

/** A claim as read, with the version a conditional write compares; `unreadable`: not a claim. */
export type ClaimEntry = { claim: Claim; stored: Stored } | "unreadable" | undefined;

export async function readEntry(team: Team, space: ClaimSpace, key: string): Promise<ClaimEntry> {
  if (!validateKey(key).ok) return undefined;
  let stored: Stored | undefined;
  try {
    stored = await team.store.get(space, claimKey(key));
  } catch {
    return "unreadable"; // a folder, a symlink, a file we may not read
  }
  if (stored === undefined) return undefined;
  const parsed = parseClaim(stored.text);
  return parsed.ok ? { claim: parsed.value, stored } : "unreadable";
}

/** The claim on `key`: undefined when free, `unreadable` when what is there is not a claim. */
export async function readClaim(
  team: Team,
  space: ClaimSpace,
  key: string,
): Promise<Claim | "unreadable" | undefined> {
  const entry = await readEntry(team, space, key);
  return entry === undefined || entry === "unreadable" ? entry : entry.claim;
}

export const sameClaim = (left: ClaimEntry & {}, right: ClaimEntry & {}) =>
  left === "unreadable" || right === "unreadable"
    ? left === right
    : left.claim.token === right.claim.token;

export const claimOf = (entry: ClaimEntry) =>
  entry === undefined || entry === "unreadable" ? undefined : entry.claim;
