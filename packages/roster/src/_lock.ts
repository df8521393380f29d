// A fenced lock, over the store's `locks` space: held by one process at a time, broken when a
// crash left it behind (its process proven dead, or the lock old), and fenced by its version so a
// holder that stalled past the break learns it lost the lock before it commits anything, and
// never releases a lock that is now another's.

import type { ClaimSpace } from "./_layout.js";
import { MAX_CLOCK_SKEW_MS, processFact } from "./_liveness.js";
import { isObject } from "./_record.js";
import { iso, type Team } from "./_team.js";
import { uniqueName } from "./_unique.js";

/** A lock older than this was left by a crash (or a holder stalled past it) and may be broken. */
export const LOCK_STALE_MS = 5_000;

/** A lock held: its key in the `locks` space and the version this holder wrote. */
export type Lock = { key: string; version: string };

/** The key of the lock taken while a claim is taken over: `<space>.<key>`. */
export const claimLockKey = (space: ClaimSpace, key: string) => `${space}.${key}`;
/** The key of the lock held while a member's record and mailbox change: `member.<id>`. */
export const memberLockKey = (id: string) => `member.${id}`;

type LockFacts = {
  at: number;
  /** The process holding it, where the taker knew itself. */
  pid?: number | undefined;
  pidStart?: string | undefined;
  place?: string | undefined;
};

const optionalString = (value: unknown) => (typeof value === "string" ? value : undefined);

function lockFacts(text: string): LockFacts | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (!isObject(value) || typeof value.token !== "string" || typeof value.at !== "string")
      return undefined;
    const pid = Number.isInteger(value.pid) && (value.pid as number) > 0 ? value.pid : undefined;
    return {
      at: Date.parse(value.at),
      pid: pid as number | undefined,
      pidStart: optionalString(value.pidStart),
      place: optionalString(value.place),
    };
  } catch {
    return undefined;
  }
}

/** Not a lock at all, older than LOCK_STALE_MS, or dated beyond the skew bound. */
export function isStaleLock(text: string, now: number): boolean {
  const facts = lockFacts(text);
  if (!facts || Number.isNaN(facts.at)) return true;
  return now - facts.at > LOCK_STALE_MS || facts.at - now > MAX_CLOCK_SKEW_MS;
}

/**
 * Left behind: stale, or held by a process proven dead (pid and start time, on this host). A
 * process merely unknown (another host, no start time, no process table) leaves it to age out.
 */
async function isLeftBehind(team: Team, text: string, now: number): Promise<boolean> {
  if (isStaleLock(text, now)) return true;
  const facts = lockFacts(text);
  if (facts?.pid === undefined) return false;
  const holder = { pid: facts.pid, pidStart: facts.pidStart, place: facts.place };
  return (await processFact(holder, team.processes).catch(() => "unknown")) === "dead";
}

/** One try: the lock taken, or the version of the holding that kept it (undefined: gone meanwhile). */
type Attempt = { lock: Lock } | { lock?: undefined; held: string | undefined };

async function attemptLock(team: Team, key: string, holder: string): Promise<Attempt> {
  const now = team.clock();
  const token = uniqueName(now);
  const self = team.processes.self?.();
  const owner = self && { pid: self.pid, pidStart: self.pidStart, place: team.processes.place?.() };
  const text = `${JSON.stringify({ v: 1, holder, at: iso(now), token, ...owner })}\n`;
  const made = await team.store.create("locks", key, text);
  if (made) return { lock: { key, version: made.version } };
  const held = await team.store.get("locks", key).catch(() => undefined);
  if (held !== undefined && !(await isLeftBehind(team, held.text, now)))
    return { held: held.version };
  // Break it by removing exactly the lock judged: only one breaker's remove finds it.
  if (held !== undefined && !(await team.store.remove("locks", key, held.version)))
    return { held: undefined };
  const again = await team.store.create("locks", key, text);
  return again ? { lock: { key, version: again.version } } : { held: undefined };
}

/** Take the lock `key`, breaking a stale one. Undefined when another process holds it. */
export async function takeLock(team: Team, key: string, holder: string): Promise<Lock | undefined> {
  return (await attemptLock(team, key, holder)).lock;
}

/**
 * How long one holding may keep a waiter, on the waiter's clock from when it first saw it. A
 * holding is a live holder's until it is LOCK_STALE_MS old, however slow its machine, and is
 * waited for; at that age it is broken (sooner when its holder is proven dead). So a try begun
 * this long after the waiter first saw the holding has judged it stale; one still held then could
 * not be broken (dated ahead by another clock), and the waiter is told "busy". The second is
 * slack for the clock's and the polls' granularity; the bound stays well inside the 10 s an
 * engine gives a hook.
 */
const HOLDING_BOUND_MS = LOCK_STALE_MS + 1_000;
/** The same bound in tries, for a roster whose sleep does not wait (tests' fakes: no clock moves). */
const HOLDING_TRIES = 400;
/** Holdings seen come and go without this waiter winning: it gives up after this many. */
const MAX_HOLDINGS = 1_000;

/**
 * Take the lock, waiting while another holds it: while each holding it sees may still be a live
 * holder's (a new holding is progress and starts the bound again), never for a fixed time.
 */
export async function waitForLock(
  team: Team,
  key: string,
  holder: string,
): Promise<Lock | undefined> {
  let seen: string | undefined;
  let since = team.clock();
  let tries = 0;
  for (let holdings = 0; holdings <= MAX_HOLDINGS; ) {
    const tried = team.clock();
    const attempt = await attemptLock(team, key, holder);
    if (attempt.lock) return attempt.lock;
    if (attempt.held === undefined || attempt.held !== seen) {
      seen = attempt.held;
      since = team.clock();
      tries = 0;
      holdings += 1;
    }
    tries += 1;
    if (tried - since > HOLDING_BOUND_MS || tries > HOLDING_TRIES) return undefined;
    await team.sleep(Math.min(5 + tries * 5, 100));
  }
  return undefined;
}

/** Is the lock still ours? Checked before a commit: a holder that stalled past the break is not. */
export async function holdsLock(team: Team, lock: Lock): Promise<boolean> {
  const current = await team.store.get("locks", lock.key).catch(() => undefined);
  return current?.version === lock.version;
}

/** Release the lock only if it is still ours. */
export async function releaseLock(team: Team, lock: Lock): Promise<void> {
  await team.store.remove("locks", lock.key, lock.version).catch(() => undefined);
}

/** Run `step` holding `id`'s member lock; undefined when another's holding of it cannot be broken. */
export async function withMemberLock<T>(
  team: Team,
  id: string,
  step: () => Promise<T>,
): Promise<T | undefined> {
  let lock: Lock | undefined;
  try {
    lock = await waitForLock(team, memberLockKey(id), id);
  } catch (error) {
    // No locks/ folder: the team folder was removed under us; the step finds nothing to race.
    if ((error as { code?: unknown } | undefined)?.code === "ENOENT") return step();
    throw error;
  }
  if (!lock) return undefined;
  try {
    return await step();
  } finally {
    await releaseLock(team, lock);
  }
}
