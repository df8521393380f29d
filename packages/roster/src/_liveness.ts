// The liveness rules that turn a record into a state: live, gone or expired, from its heartbeat
// and, where it can be had, a fact about its process.

/** Liveness defaults: beat every 10 s, stale after 30 s, forgotten after an hour. */
export type RosterPolicy = { heartbeatIntervalMs: number; staleAfterMs: number; ttlMs: number };
export const DEFAULT_POLICY: RosterPolicy = {
  heartbeatIntervalMs: 10_000,
  staleAfterMs: 30_000,
  ttlMs: 60 * 60_000,
};

/** A clock this far ahead of ours is not believed: a heartbeat dated beyond it is judged by its file's age. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** A process fact: `unknown` (another host, no permission, no process table) proves nothing. */
export type ProcessFact = "alive" | "dead" | "unknown";
export type ProcessFacts = {
  alive(pid: number, pidStart: string | undefined): ProcessFact | Promise<ProcessFact>;
  /**
   * Where this host's pids mean something (its boot and pid namespace). A record from another
   * place is judged by its heartbeat only: no process fact from here can prove it dead or alive.
   */
  place?: (() => string | undefined) | undefined;
  /**
   * The process this roster runs in (pid and start time): a lock it takes names it, so a lock
   * left by a process that died holding it is broken at once, not only once it is old.
   */
  self?: (() => { pid: number; pidStart?: string | undefined } | undefined) | undefined;
};

export type MemberState =
  | { state: "live"; why: "heartbeat-fresh" | "process-alive" | "process-unknown" }
  | { state: "gone"; why: "heartbeat-stale" | "process-dead" }
  | { state: "expired"; why: "past-ttl" };

export type LivenessInput = {
  heartbeatAt: string;
  liveness: "heartbeat" | "process";
  pid: number;
  pidStart?: string | undefined;
  place?: string | undefined;
};

/**
 * What this host can say of a record's process: nothing (`unknown`) for a record from another
 * boot or pid namespace, or for a pid with no start time to match; else the injected fact.
 */
export async function processFact(
  record: Pick<LivenessInput, "pid" | "pidStart" | "place">,
  processes: ProcessFacts,
): Promise<ProcessFact> {
  if (record.place !== processes.place?.()) return "unknown";
  const fact = await processes.alive(record.pid, record.pidStart);
  return fact === "alive" && record.pidStart === undefined ? "unknown" : fact;
}

/** When the record last beat, believed: a time beyond the skew bound is replaced by `fileTime`. */
export async function believedBeat(
  heartbeatAt: string,
  now: number,
  fileTime: () => Promise<number>,
): Promise<number> {
  const beat = Date.parse(heartbeatAt);
  return beat - now > MAX_CLOCK_SKEW_MS ? Math.min(await fileTime(), now) : beat;
}

/**
 * The state of a record now, from its heartbeat and (where it can be had) its process. A member
 * whose process is proven alive is never expired: at most gone (stale) until it beats again.
 */
export async function memberState(
  record: LivenessInput,
  now: number,
  policy: RosterPolicy,
  processes: ProcessFacts,
  fileTime: () => Promise<number> = async () => now,
): Promise<MemberState> {
  const age = now - (await believedBeat(record.heartbeatAt, now, fileTime));
  const fact = await processFact(record, processes);
  // A member kept live by its process needs no heartbeat while that process runs.
  if (record.liveness === "process" && fact === "alive")
    return { state: "live", why: "process-alive" };
  if (fact === "alive")
    return age <= policy.staleAfterMs
      ? { state: "live", why: "heartbeat-fresh" }
      : { state: "gone", why: "heartbeat-stale" };
  if (age > policy.ttlMs) return { state: "expired", why: "past-ttl" };
  if (fact === "dead") return { state: "gone", why: "process-dead" };
  if (record.liveness === "process") return { state: "live", why: "process-unknown" };
  return age <= policy.staleAfterMs
    ? { state: "live", why: "heartbeat-fresh" }
    : { state: "gone", why: "heartbeat-stale" };
}
