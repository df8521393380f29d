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
  | { state: "live"; reason: "heartbeat-fresh" | "process-alive" | "process-unknown" }
  | { state: "gone"; reason: "heartbeat-stale" | "process-dead" }
  | { state: "expired"; reason: "past-ttl" };

export type LivenessInput = {
  heartbeatAt: string;
  liveness: "heartbeat" | "process";
  pid: number;
  pidStart?: string | undefined;
  place?: string | undefined;
};

/** Whether a record's pid names a process of this host (its boot and pid namespace). */
const isHere = (record: Pick<LivenessInput, "place">, processes: ProcessFacts) =>
  record.place === processes.place?.();

/**
 * What this host can say of a record's process: nothing (`unknown`) for a record from another
 * boot or pid namespace, or for a pid with no start time to match; else the injected fact.
 */
export async function processFact(
  record: Pick<LivenessInput, "pid" | "pidStart" | "place">,
  processes: ProcessFacts,
): Promise<ProcessFact> {
  if (!isHere(record, processes)) return "unknown";
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
 * whose process is proven alive is never expired: at most gone (stale) until it beats again. One
 * whose process is proven dead is gone (`process-dead`), never expired: the TTL is for the members
 * nothing can be proven of. A record of another host is judged by its heartbeat alone, whatever
 * keeps it live there.
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
    return { state: "live", reason: "process-alive" };
  if (fact === "alive")
    return age <= policy.staleAfterMs
      ? { state: "live", reason: "heartbeat-fresh" }
      : { state: "gone", reason: "heartbeat-stale" };
  // Proven dead is gone at once, however long ago it last beat (a member kept live by its process
  // beats only when it joins): its claims are free now, and prune forgets it now.
  if (fact === "dead") return { state: "gone", reason: "process-dead" };
  if (age > policy.ttlMs) return { state: "expired", reason: "past-ttl" };
  // Kept live by a process this host cannot see into (no start time, no permission): live until
  // the TTL. A process of another host is that host's to watch: it beats for the member, and
  // here the member is judged by those beats alone, stale (never dead) when they stop.
  if (record.liveness === "process" && isHere(record, processes))
    return { state: "live", reason: "process-unknown" };
  return age <= policy.staleAfterMs
    ? { state: "live", reason: "heartbeat-fresh" }
    : { state: "gone", reason: "heartbeat-stale" };
}

/** Whether prune forgets a member in this state: past the TTL, or proven dead (its claims are free). */
export const isPrunable = (state: MemberState) =>
  state.state === "expired" || (state.state === "gone" && state.reason === "process-dead");

/**
 * The same process facts, each process asked once: for one read of the team, where several
 * records may name one process (one agent joined under several ids, a test's own process).
 */
export function askedOnce(processes: ProcessFacts): ProcessFacts {
  const answers = new Map<string, ProcessFact | Promise<ProcessFact>>();
  return {
    ...processes,
    alive(pid, pidStart) {
      const key = `${pid} ${pidStart ?? ""}`;
      let answer = answers.get(key);
      if (answer === undefined) {
        answer = processes.alive(pid, pidStart);
        answers.set(key, answer);
      }
      return answer;
    },
  };
}
