// The session record (one file per session id), the label claim, and the liveness rules that turn
// a record into a state. Parsing is strict: a record that does not parse is a warning, never a member.

export type Watching = { armed: boolean; wake: boolean };

/** Where a session sits in tmux: the server (socket path), the session id and the pane id. */
export type Seat = {
  server: string;
  session: string;
  pane: string;
  serverPid?: number | undefined;
};

/** How a member proves it is alive: a heartbeat timer, or its process running. */
export type Liveness = "heartbeat" | "process";

export type SessionRecord = {
  v: 1;
  id: string;
  label: string;
  agent: string;
  cwd?: string | undefined;
  pid: number;
  pidStart?: string | undefined;
  seat?: Seat | undefined;
  watching: Watching;
  liveness: Liveness;
  joinedAt: string;
  heartbeatAt: string;
};

export type LabelClaim = {
  v: 1;
  id: string;
  label: string;
  at: string;
  pid: number;
  pidStart?: string | undefined;
};

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

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isWatching = (value: unknown): value is Watching =>
  isObject(value) && typeof value.armed === "boolean" && typeof value.wake === "boolean";
const isSeat = (value: unknown): value is Seat =>
  isObject(value) &&
  typeof value.server === "string" &&
  typeof value.session === "string" &&
  typeof value.pane === "string";
const isTime = (value: unknown): value is string =>
  typeof value === "string" && !Number.isNaN(Date.parse(value));

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function parseJson(text: string): Parsed<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: "does not parse as JSON (truncated or not a roster file)" };
  }
  if (!isObject(value)) return { ok: false, error: "is not a JSON object" };
  if (value.v !== 1) return { ok: false, error: `has unknown version ${JSON.stringify(value.v)}` };
  return { ok: true, value };
}

export function parseRecord(text: string): Parsed<SessionRecord> {
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  const record = parsed.value;
  const valid =
    typeof record.id === "string" &&
    typeof record.label === "string" &&
    typeof record.agent === "string" &&
    Number.isInteger(record.pid) &&
    (record.pidStart === undefined || typeof record.pidStart === "string") &&
    (record.cwd === undefined || typeof record.cwd === "string") &&
    (record.seat === undefined || isSeat(record.seat)) &&
    isWatching(record.watching) &&
    (record.liveness === "heartbeat" || record.liveness === "process") &&
    isTime(record.joinedAt) &&
    isTime(record.heartbeatAt);
  return valid
    ? { ok: true, value: record as SessionRecord }
    : { ok: false, error: "is missing fields a session record needs" };
}

export function parseClaim(text: string): Parsed<LabelClaim> {
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  const claim = parsed.value;
  return typeof claim.id === "string" &&
    typeof claim.label === "string" &&
    isTime(claim.at) &&
    Number.isInteger(claim.pid)
    ? { ok: true, value: claim as LabelClaim }
    : { ok: false, error: "is missing fields a label claim needs" };
}

/** The state of a record now, from its heartbeat and (where it can be had) its process. */
export async function memberState(
  record: Pick<SessionRecord, "heartbeatAt" | "liveness" | "pid" | "pidStart">,
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
