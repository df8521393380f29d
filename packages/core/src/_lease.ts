// Path leases: which leases still hold, whether a new one conflicts with them, whether a path may
// be changed, and what a refusal tells the reader. The files live in the roster; this is the rule.
import { patternsOverlap } from "./_overlap.js";
import { compilePattern, matchesParts, type PathPattern, pathParts } from "./_wildmatch.js";

/** One lease as the roster stores it. Times are milliseconds since the epoch. */
export type Lease = {
  id: string;
  /** The holder's label, as peers address it. */
  holder: string;
  /** The holder's member id (its session id). */
  holderId: string;
  pattern: string;
  mode: "exclusive" | "shared";
  reason?: string | undefined;
  takenAt: number;
  expiresAt: number;
};

/**
 * What the roster knows of a lease holder: `live`; `stale` (late heartbeat, process not proven
 * dead); `dead` (its process proven dead); `expired` (past the TTL); `absent` (no record: it left);
 * `unknown` (the roster could not be read).
 */
export type HolderState = "live" | "stale" | "dead" | "expired" | "absent" | "unknown";

/** Why a lease no longer holds, or that it does. */
export type LeaseStanding =
  | { holds: true }
  | { holds: false; reason: "ttl-expired" | "holder-dead" | "holder-expired" | "holder-left" };

/** How long a lease lasts when its taker names no length (every door's default: 30 minutes). */
export const DEFAULT_LEASE_MS = 30 * 60_000;

/**
 * A lease holds while its TTL runs and its holder may be alive. A holder proven dead, expired or
 * no longer on the roster frees it at once; a late (`stale`) holder or one the roster cannot speak
 * for (`unknown`) keeps it: no evidence is not a death.
 */
export function leaseStanding(lease: Lease, holder: HolderState, now: number): LeaseStanding {
  if (now >= lease.expiresAt) return { holds: false, reason: "ttl-expired" };
  switch (holder) {
    case "dead":
      return { holds: false, reason: "holder-dead" };
    case "expired":
      return { holds: false, reason: "holder-expired" };
    case "absent":
      return { holds: false, reason: "holder-left" };
    default:
      return { holds: true };
  }
}

/** A lease with its pattern compiled once, for checking many paths or requests against it. */
export type CompiledLease = Lease & { compiled: PathPattern };

export const compileLeases = (leases: readonly Lease[], ignoreCase = false): CompiledLease[] =>
  leases.map((lease) => ({ ...lease, compiled: compilePattern(lease.pattern, ignoreCase) }));

export type LeaseRequest = {
  holderId: string;
  pattern: string;
  mode: "exclusive" | "shared";
};

export type LeaseConflict = {
  ok: false;
  reason: "lease-held";
  /** The lease in the way (the first one, in the order given). */
  lease: Lease;
  /** Every lease in the way. */
  conflicts: readonly Lease[];
};

/**
 * Whether a new lease may be taken beside the ones that hold. Exclusive conflicts with any other
 * holder's overlapping lease; shared conflicts only with an exclusive one. A holder's own leases
 * never conflict with its new one (it is renewing or widening).
 */
export function checkLeaseRequest(
  request: LeaseRequest,
  holding: readonly CompiledLease[],
  ignoreCase = false,
): { ok: true } | LeaseConflict {
  const wanted = compilePattern(request.pattern, ignoreCase);
  const conflicts = holding.filter(
    (lease) =>
      lease.holderId !== request.holderId &&
      (request.mode === "exclusive" || lease.mode === "exclusive") &&
      patternsOverlap(wanted, lease.compiled),
  );
  const first = conflicts[0];
  return first ? { ok: false, reason: "lease-held", lease: first, conflicts } : { ok: true };
}

export type BlockedPath = { path: string; lease: Lease };

/**
 * The paths among `paths` that `memberId` may not change: each one covered by another member's
 * exclusive lease that holds. What an edit hook or a pre-commit guard asks.
 */
export function blockedPaths(
  paths: readonly string[],
  holding: readonly CompiledLease[],
  memberId: string | undefined,
): BlockedPath[] {
  const others = holding.filter(
    (lease) => lease.mode === "exclusive" && lease.holderId !== memberId,
  );
  const blocked: BlockedPath[] = [];
  for (const path of paths) {
    // Split once per path (and per case rule), not once per lease.
    const split = [pathParts(path, false), pathParts(path, true)];
    const lease = others.find((candidate) =>
      matchesParts(candidate.compiled, split[candidate.compiled.ignoreCase ? 1 : 0] as string[]),
    );
    if (lease) blocked.push({ path, lease });
  }
  return blocked;
}

/** How a reader reaches the holder, said in the reader's own surface (a CLI line, a tool name). */
export type AskHow = (holder: string) => string;

const plainAsk: AskHow = (holder) => `send ${holder} a message`;

/** "held by bob (refactoring auth) until 14:05": who, why, and until when. */
export function describeLease(lease: Lease, clock: (at: number) => string): string {
  const reason = lease.reason ? ` (${lease.reason})` : "";
  return `${lease.mode === "shared" ? "shared" : "held"} by ${lease.holder}${reason} until ${clock(lease.expiresAt)}`;
}

/** The fix for a lease refusal: ask the holder; never force. */
export const leaseFix = (lease: Lease, ask: AskHow = plainAsk): string =>
  `ask ${lease.holder} to release it (${ask(lease.holder)}), or wait until the lease ends`;

/** One line for a refused lease: what is in the way, then what to do. */
export function leaseRefusalLine(
  pattern: string,
  conflict: LeaseConflict,
  clock: (at: number) => string,
  ask?: AskHow,
): string {
  const more = conflict.conflicts.length > 1 ? ` and ${conflict.conflicts.length - 1} more` : "";
  return `${pattern} overlaps ${conflict.lease.pattern}, ${describeLease(conflict.lease, clock)}${more}; ${leaseFix(conflict.lease, ask)}.`;
}

/** One line for a blocked change: the path, who holds it, then what to do. */
export function blockedPathLine(
  blocked: BlockedPath,
  clock: (at: number) => string,
  ask?: AskHow,
): string {
  return `${blocked.path} is leased (${blocked.lease.pattern}), ${describeLease(blocked.lease, clock)}; ${leaseFix(blocked.lease, ask)}.`;
}

/**
 * The fix when a guard cannot tell whether a change touches a lease: it refuses until it can, and
 * the person may choose to let changes through unchecked.
 */
export const UNCHECKED_FIX =
  "fix what stops the check and try again, or set MUSTER_GUARD=warn to let changes through unchecked";

/** One line for a change a guard refused because it could not check it: what, why, then the fix. */
export const uncheckedLine = (what: string, error: string): string =>
  `${what} is refused: muster could not check it against the team's leases (${error}); ${UNCHECKED_FIX}.`;
