// The session record (one file per session id) and its strict parser: a record that does not parse
// is a warning, never a member. The liveness rules that judge it live in `_liveness.ts`.

export type Watching = { armed: boolean; wake: boolean };

/** Where a session sits in tmux: the server (socket path), the session id and the pane id. */
export type Seat = {
  server: string;
  session: string;
  pane: string;
  serverPid?: number | undefined;
};

/** Whether a member's agent is in a turn or waiting for input, as its engine reported. */
export type ActivityState = "idle" | "busy";
export type Activity = { state: ActivityState; at: string };

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
  /** Where `pid` means something (boot and pid namespace), as the joiner's host tells it. */
  place?: string | undefined;
  joinedAt: string;
  heartbeatAt: string;
  /** The agent's last reported activity (engines with hooks report it; absent for the others). */
  activity?: Activity | undefined;
};

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isWatching = (value: unknown): value is Watching =>
  isObject(value) && typeof value.armed === "boolean" && typeof value.wake === "boolean";
const isSeat = (value: unknown): value is Seat =>
  isObject(value) &&
  typeof value.server === "string" &&
  typeof value.session === "string" &&
  typeof value.pane === "string";
export const isTime = (value: unknown): value is string =>
  typeof value === "string" && !Number.isNaN(Date.parse(value));
const isActivity = (value: unknown): value is Activity =>
  isObject(value) && (value.state === "idle" || value.state === "busy") && isTime(value.at);

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function parseJson(text: string): Parsed<Record<string, unknown>> {
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
    (record.place === undefined || typeof record.place === "string") &&
    isTime(record.joinedAt) &&
    isTime(record.heartbeatAt) &&
    (record.activity === undefined || isActivity(record.activity));
  return valid
    ? { ok: true, value: record as SessionRecord }
    : { ok: false, error: "is missing fields a session record needs" };
}
