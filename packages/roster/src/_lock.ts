// A fenced lock file: held by one process at a time, broken when a crash left it behind (its
// process proven dead, or the lock old), and fenced by a token so a holder that stalled past the
// break learns it lost the lock before it commits anything, and never releases a lock that is now
// another's.
import {
  createExclusive,
  errorCode,
  type RosterFs,
  readIfPresent,
  tempBeside,
  uniqueName,
} from "./_fs.js";
import { MAX_CLOCK_SKEW_MS, processFact } from "./_liveness.js";
import { isObject } from "./_record.js";
import { iso, type Team } from "./_team.js";

/** A lock older than this was left by a crash (or a holder stalled past it) and may be broken. */
export const LOCK_STALE_MS = 5_000;

export type Lock = { path: string; token: string };

type LockFacts = {
  token: string;
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
      token: value.token,
      at: Date.parse(value.at),
      pid: pid as number | undefined,
      pidStart: optionalString(value.pidStart),
      place: optionalString(value.place),
    };
  } catch {
    return undefined;
  }
}

const tokenOf = (text: string | undefined) =>
  text === undefined ? undefined : lockFacts(text)?.token;

/**
 * Left behind: not a lock at all, older than LOCK_STALE_MS, dated beyond the skew bound, or held
 * by a process proven dead (pid and start time, on this host). A process merely unknown (another
 * host, no start time, no process table) leaves the lock to age out.
 */
async function isLeftBehind(team: Team, text: string, now: number): Promise<boolean> {
  const facts = lockFacts(text);
  if (!facts || Number.isNaN(facts.at)) return true;
  if (now - facts.at > LOCK_STALE_MS || facts.at - now > MAX_CLOCK_SKEW_MS) return true;
  if (facts.pid === undefined) return false;
  const holder = { pid: facts.pid, pidStart: facts.pidStart, place: facts.place };
  return (await processFact(holder, team.processes).catch(() => "unknown")) === "dead";
}

/**
 * Remove the file at `path` only if it still holds `token`: move it aside, look, and put back
 * (exclusively) one that is not ours. True when ours was removed.
 */
export async function removeIfToken(
  fs: RosterFs,
  path: string,
  token: string,
  now: number,
  tokenIn: (text: string | undefined) => string | undefined = tokenOf,
): Promise<boolean> {
  if (tokenIn(await readIfPresent(fs, path).catch(() => undefined)) !== token) return false;
  const aside = tempBeside(path, now);
  try {
    await fs.rename(path, aside);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw error;
  }
  const moved = await readIfPresent(fs, aside).catch(() => undefined);
  if (tokenIn(moved) !== token) {
    // Changed hands between the look and the move: put it back unless another is there now.
    await fs.link(aside, path).catch(() => undefined);
    await fs.unlink(aside).catch(() => undefined);
    return false;
  }
  await fs.unlink(aside).catch(() => undefined);
  return true;
}

/** Take the lock at `path`, breaking a stale one. Undefined when another process holds it. */
export async function takeLock(
  team: Team,
  path: string,
  holder: string,
): Promise<Lock | undefined> {
  const now = team.clock();
  const token = uniqueName(now);
  const self = team.processes.self?.();
  const owner = self && { pid: self.pid, pidStart: self.pidStart, place: team.processes.place?.() };
  const text = `${JSON.stringify({ v: 1, holder, at: iso(now), token, ...owner })}\n`;
  if (await createExclusive(team.fs, path, text, now)) return { path, token };
  const held = await readIfPresent(team.fs, path).catch(() => undefined);
  if (held !== undefined && !(await isLeftBehind(team, held, now))) return undefined;
  if (held !== undefined) {
    // Break it by moving it aside: only one breaker's move finds the stale lock.
    const stale = tokenOf(held) ?? "";
    if (!(await removeIfToken(team.fs, path, stale, now, (seen) => tokenOf(seen) ?? ""))) {
      return undefined;
    }
  }
  return (await createExclusive(team.fs, path, text, now)) ? { path, token } : undefined;
}

/** Take the lock, waiting a little while another holds it: for short critical sections. */
export async function waitForLock(
  team: Team,
  path: string,
  holder: string,
  attempts = 40,
): Promise<Lock | undefined> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const lock = await takeLock(team, path, holder);
    if (lock) return lock;
    await team.sleep(5 + attempt * 5);
  }
  return undefined;
}

/** Is the lock still ours? Checked before a commit: a holder that stalled past the break is not. */
export async function holdsLock(team: Team, lock: Lock): Promise<boolean> {
  return tokenOf(await readIfPresent(team.fs, lock.path).catch(() => undefined)) === lock.token;
}

/** Release the lock only if it is still ours. */
export async function releaseLock(team: Team, lock: Lock): Promise<void> {
  await removeIfToken(team.fs, lock.path, lock.token, team.clock()).catch(() => undefined);
}

/** Run `step` holding `id`'s member lock; undefined when another process holds it too long. */
export async function withMemberLock<T>(
  team: Team,
  id: string,
  step: () => Promise<T>,
): Promise<T | undefined> {
  let lock: Lock | undefined;
  try {
    lock = await waitForLock(team, team.paths.memberLockFile(id), id);
  } catch (error) {
    // No locks/ folder: the team folder was removed under us; the step finds nothing to race.
    if (errorCode(error) === "ENOENT") return step();
    throw error;
  }
  if (!lock) return undefined;
  try {
    return await step();
  } finally {
    await releaseLock(team, lock);
  }
}
