// The liveness rules that turn a record into a state: live, gone or expired, from its heartbeat
// and, where it can be had, a fact about its process.

/** Liveness defaults: beat every 10 s, stale after 30 s, forgotten after an hour. */
export type RosterPolicy = { heartbeatIntervalMs: number; staleAfterMs: number; ttlMs: number };
export const DEFAULT_POLICY: RosterPolicy = {
  heartbeatIntervalMs: 10_000,
  staleAfterMs: 30_000,
  ttlMs: 60 * 60_000,
};

/** A process fact: `unknown` (another host, no permission, no process table) proves nothing. */
export type ProcessFact = "alive" | "dead" | "unknown";
export type ProcessFacts = {
  alive(pid: number, pidStart: string | undefined): ProcessFact | Promise<ProcessFact>;
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
};

/** The state of a record now, from its heartbeat and (where it can be had) its process. */
export async function memberState(
  record: LivenessInput,
  now: number,
  policy: RosterPolicy,
  processes: ProcessFacts,
): Promise<MemberState> {
  const age = now - Date.parse(record.heartbeatAt);
  const fact = await processes.alive(record.pid, record.pidStart);
  // A member kept live by its process needs no heartbeat while that process runs.
  if (record.liveness === "process" && fact === "alive")
    return { state: "live", why: "process-alive" };
  if (age > policy.ttlMs) return { state: "expired", why: "past-ttl" };
  if (fact === "dead") return { state: "gone", why: "process-dead" };
  if (record.liveness === "process") return { state: "live", why: "process-unknown" };
  return age <= policy.staleAfterMs
    ? { state: "live", why: "heartbeat-fresh" }
    : { state: "gone", why: "heartbeat-stale" };
}
