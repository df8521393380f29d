// Path leases on the general claim: each lease is a claim in the `leases` space, keyed by its
// holder and pattern, so a holder renews its own and releases only its own. Whether a new lease
// conflicts with the others is the caller's rule (core's); the roster makes check-then-take one
// step under a fenced lock, and removes the leases the caller's rule says no longer hold.
import { takeClaim } from "./_claim.js";
import { type Claim, readClaim } from "./_claim-read.js";
import { listClaims, releaseClaim, removeClaim } from "./_claim-release.js";
import { errorText } from "./_error.js";
import { claimLockKey, holdsLock, releaseLock, waitForLock } from "./_lock.js";
import { judgeHolder } from "./_members.js";
import { iso, type Team } from "./_team.js";

/** What the roster knows of a lease's holder (core's `HolderState`). */
export type LeaseHolderState = "live" | "stale" | "dead" | "expired" | "absent" | "unknown";

/** One lease as read: core's `Lease` plus the holder's state and the claim's token. */
export type LeaseEntry = {
  id: string;
  holder: string;
  holderId: string;
  pattern: string;
  mode: "exclusive" | "shared";
  reason?: string | undefined;
  takenAt: number;
  expiresAt: number;
  holderState: LeaseHolderState;
};

export type LeaseInput = {
  holderId: string;
  /** The holder's label, as peers address it. */
  holder: string;
  /** Normalised by the caller (core's `normalisePattern`). */
  pattern: string;
  mode: "exclusive" | "shared";
  reason?: string | undefined;
  ttlMs: number;
};

export type LeasesRead =
  | {
      ok: true;
      /** The leases that hold, in the order taken. */
      leases: LeaseEntry[];
      /** The leases that no longer hold (past their TTL, their holder gone): left in place. */
      lapsed: LeaseEntry[];
      /** Always empty: a read changes nothing (kept for callers that read it). */
      released: LeaseEntry[];
      warnings: string[];
    }
  | { ok: false; state: "unknown"; error: string };

/** Asked of every lease read: does it still hold? (core's `leaseStanding`). */
export type LeaseHolds = (lease: LeaseEntry, now: number) => boolean;

export type TakeLeaseResult<Refusal> =
  | { ok: true; lease: LeaseEntry; renewed: boolean }
  | { ok: false; reason: "refused"; refusal: Refusal }
  | { ok: false; reason: LeaseFailure; error: string; fix: string };

export type LeaseFailure = "busy" | "unknown" | "bad-input";

const MAX_REASON = 200;
const MAX_PATTERN = 1024;

/** What to do about each failure: defined here, beside the checks; composers join it to the error. */
export const LEASE_FIXES: Record<LeaseFailure, string> = {
  busy: "try again in a moment",
  unknown: "check the team folder can be read",
  "bad-input": `give a pattern of 1-${MAX_PATTERN} characters and a time to hold it`,
};

const fail = (reason: LeaseFailure, error: string) => ({
  ok: false as const,
  reason,
  error,
  fix: LEASE_FIXES[reason],
});

/** A key from holder and pattern: FNV-1a over both, 64 bits as hex (no hashing library here). */
export function leaseKey(holderId: string, pattern: string): string {
  let high = 0xcbf29ce4;
  let low = 0x84222325;
  for (const char of `${holderId}\u0000${pattern}`) {
    const code = char.codePointAt(0) ?? 0;
    low ^= code & 0xffff;
    high ^= code >>> 16;
    // Multiply the 64-bit value by the FNV prime 0x100000001b3, in 32-bit halves.
    const lowProduct = low * 0x1b3;
    high =
      (Math.imul(high, 0x1b3) + Math.imul(low, 0x100) + Math.floor(lowProduct / 2 ** 32)) >>> 0;
    low = lowProduct >>> 0;
  }
  return `l${high.toString(16).padStart(8, "0")}${low.toString(16).padStart(8, "0")}`;
}

function entryOf(claim: Claim, states: Map<string, LeaseHolderState>): LeaseEntry | undefined {
  const data = claim.data ?? {};
  const { pattern, mode, holder, reason, expiresAt } = data;
  if (
    typeof pattern !== "string" ||
    pattern.length === 0 ||
    pattern.length > MAX_PATTERN ||
    (mode !== "exclusive" && mode !== "shared") ||
    typeof holder !== "string" ||
    typeof expiresAt !== "string" ||
    Number.isNaN(Date.parse(expiresAt)) ||
    (reason !== undefined && typeof reason !== "string")
  ) {
    return undefined;
  }
  return {
    id: claim.key,
    holder,
    holderId: claim.holder,
    pattern,
    mode,
    reason: reason?.slice(0, MAX_REASON),
    takenAt: Date.parse(claim.at),
    expiresAt: Date.parse(expiresAt),
    holderState: states.get(claim.holder) ?? "absent",
  };
}

/**
 * Each holder's state, judged from its own session record alone (what reading the whole team said
 * of it): live, expired, dead (its process gone) or stale; absent without a record; a record
 * nobody here can read is unknown, never dead, until the TTL makes it expired.
 */
async function holderStates(
  team: Team,
  claims: readonly { holder: string }[],
): Promise<Map<string, LeaseHolderState>> {
  const now = team.clock();
  const ids = [...new Set(claims.map((claim) => claim.holder))];
  const judged = await Promise.all(ids.map((id) => judgeHolder(team, id, now)));
  const states = new Map<string, LeaseHolderState>();
  judged.forEach((holder, index) => {
    const id = ids[index] as string;
    if (holder.found === "unreadable") states.set(id, holder.state);
    if (holder.found !== "member") return;
    const { state } = holder;
    states.set(
      id,
      state.state === "live"
        ? "live"
        : state.state === "expired"
          ? "expired"
          : state.reason === "process-dead"
            ? "dead"
            : "stale",
    );
  });
  return states;
}

/**
 * Every lease with its holder's state, sorted by whether `holds` keeps it. A read: nothing is
 * removed (a take clears the lapsed ones, under the lease lock).
 */
export async function readLeases(team: Team, holds: LeaseHolds): Promise<LeasesRead> {
  let listed: Awaited<ReturnType<typeof listClaims>>;
  try {
    listed = await listClaims(team, "leases");
  } catch (error) {
    return { ok: false, state: "unknown", error: `cannot read the leases: ${errorText(error)}` };
  }
  // No leases, no need to judge holders: `status` reads this on every call.
  if (listed.claims.length === 0)
    return { ok: true, leases: [], lapsed: [], released: [], warnings: listed.warnings };
  // Only the holders are judged (the edit guard reads this before every edit): one record each.
  const states = await holderStates(team, listed.claims);
  const warnings = [...listed.warnings];
  const leases: LeaseEntry[] = [];
  const lapsed: LeaseEntry[] = [];
  const now = team.clock();
  for (const claim of listed.claims) {
    const entry = entryOf(claim, states);
    if (!entry) {
      warnings.push(`leases/${claim.key}.json is not a lease; skipped`);
      continue;
    }
    (holds(entry, now) ? leases : lapsed).push(entry);
  }
  const byTaken = (left: LeaseEntry, right: LeaseEntry) =>
    left.takenAt - right.takenAt || left.id.localeCompare(right.id);
  leases.sort(byTaken);
  lapsed.sort(byTaken);
  return { ok: true, leases, lapsed, released: [], warnings };
}

/**
 * Remove the leases a read found lapsed, each only if it is still the lease read (its holder, its
 * time taken and its expiry): called under the lease lock, which every renewal takes too.
 */
async function clearLapsed(team: Team, lapsed: readonly LeaseEntry[]) {
  for (const entry of lapsed) {
    const current = await readClaim(team, "leases", entry.id);
    if (current === undefined || current === "unreadable") continue;
    const now = entryOf(current, new Map());
    if (now?.holderId === entry.holderId && now.takenAt === entry.takenAt)
      if (now.expiresAt === entry.expiresAt) await removeClaim(team, "leases", entry.id, current);
  }
}

/**
 * Take (or renew) a lease when `check` allows it beside the leases that hold. Check and take are
 * one step under the team's lease lock, fenced: a taker that stalled past the lock's break takes
 * nothing, and one that lost the lock right after taking gives the lease back.
 */
export async function takeLease<Refusal>(
  team: Team,
  input: LeaseInput,
  holds: LeaseHolds,
  check: (holding: readonly LeaseEntry[]) => { ok: true } | { ok: false; refusal: Refusal },
): Promise<TakeLeaseResult<Refusal>> {
  if (input.pattern.length === 0 || input.pattern.length > MAX_PATTERN)
    return fail("bad-input", `a lease needs a pattern of 1-${MAX_PATTERN} characters`);
  if (!(input.ttlMs > 0)) return fail("bad-input", "a lease needs a TTL");
  const lock = await waitForLock(team, claimLockKey("leases", "table"), input.holderId);
  if (!lock) return fail("busy", "another member is taking a lease");
  try {
    const read = await readLeases(team, holds);
    if (!read.ok) return fail("unknown", read.error);
    // A take is a write: the leases that lapsed go now, under the lock.
    await clearLapsed(team, read.lapsed);
    const verdict = check(read.leases);
    if (!verdict.ok) return { ok: false, reason: "refused", refusal: verdict.refusal };
    const key = leaseKey(input.holderId, input.pattern);
    const renewed = read.leases.some((lease) => lease.id === key);
    const now = team.clock();
    const data = {
      pattern: input.pattern,
      mode: input.mode,
      holder: input.holder,
      reason: input.reason?.slice(0, MAX_REASON),
      expiresAt: iso(now + input.ttlMs),
    };
    if (!(await holdsLock(team, lock))) return fail("busy", "the lease lock was lost");
    const taken = await takeClaim(team, {
      space: "leases",
      key,
      holder: input.holderId,
      data,
      // Keys name their holder: another holder here is a stale file the read above kept.
      judge: async (current) => ({ free: false, held: current.holder }),
    });
    if (!taken.ok) return fail("busy", `the lease could not be written (${taken.reason})`);
    if (!(await holdsLock(team, lock))) {
      await releaseClaim(team, "leases", key, input.holderId);
      return fail("busy", "the lease lock was lost");
    }
    const lease = entryOf(taken.claim, new Map([[input.holderId, "live"]]));
    if (!lease) return fail("bad-input", "the lease did not read back");
    return { ok: true, lease, renewed };
  } finally {
    await releaseLock(team, lock);
  }
}

/** Release `holderId`'s leases on `patterns` (all of them with `"all"`); the ones released. */
export async function releaseLeases(
  team: Team,
  holderId: string,
  patterns: readonly string[] | "all",
): Promise<{ ok: true; released: string[] } | { ok: false; error: string }> {
  let listed: Awaited<ReturnType<typeof listClaims>>;
  try {
    listed = await listClaims(team, "leases");
  } catch (error) {
    return { ok: false, error: `cannot read the leases: ${errorText(error)}` };
  }
  const released: string[] = [];
  for (const claim of listed.claims) {
    if (claim.holder !== holderId) continue;
    const pattern = claim.data?.pattern;
    if (typeof pattern !== "string") continue;
    if (patterns !== "all" && !patterns.includes(pattern)) continue;
    if (await removeClaim(team, "leases", claim.key, claim)) released.push(pattern);
  }
  return { ok: true, released };
}
