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

/**
 * What a member's agent is doing, as its engine's last signal said (core's activity rule decides
 * it; the roster only keeps it): the state, since when, last confirmed when, by which signal.
 */
export type ActivityState = "working" | "idle" | "needs-you" | "gone";
export type Activity = {
  state: ActivityState;
  since: string;
  at: string;
  /** `engine/signal`, e.g. `claude/permission-request`. */
  signal: string;
  /** For `needs-you`: the state the wait interrupted. */
  resume?: "working" | "idle" | undefined;
  /** For `gone`: what the agent was doing when its process was found dead. */
  was?: "working" | "idle" | "needs-you" | undefined;
};

/**
 * What a spawn saw the member's engine say when it could not run a turn (core's kinds: no-model,
 * not-signed-in, unreachable), the engine's words quoted, and when: kept until a turn begins after.
 */
export type Trouble = { kind: string; words: string; at: string };

/**
 * The mark `muster stop` and `muster down` leave on a member before they end its process: a
 * member whose process is dead without it crashed (core's `crashOf`).
 */
export type Ended = { at: string; by: "stop" | "down" };

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
  /**
   * Where the member's engine keeps its sessions (Codex: CODEX_HOME, else ~/.codex), as its door
   * saw it: only a process of the same home can wake it from outside. Compared, never opened.
   */
  engineHome?: string | undefined;
  joinedAt: string;
  heartbeatAt: string;
  /** The agent's last reported activity (engines with signals report it; absent for the others). */
  activity?: Activity | undefined;
  /** When the person was last alerted about this member (the attention debounce). */
  alertedAt?: string | undefined;
  /** What its engine said when it could not run a turn, as its spawn saw it. */
  trouble?: Trouble | undefined;
  /** Set by `muster stop` or `muster down` before they end the member's process. */
  ended?: Ended | undefined;
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
const ACTIVITY_STATES: readonly unknown[] = ["working", "idle", "needs-you", "gone"];
/** A signal name: short, printable, `engine/signal`. */
const SIGNAL_NAME = /^[a-z0-9][a-z0-9.-]{0,31}\/[a-z0-9][a-z0-9.-]{0,47}$/;

export const isActivity = (value: unknown): value is Activity =>
  isObject(value) &&
  ACTIVITY_STATES.includes(value.state) &&
  isTime(value.since) &&
  isTime(value.at) &&
  typeof value.signal === "string" &&
  SIGNAL_NAME.test(value.signal) &&
  (value.resume === undefined || value.resume === "working" || value.resume === "idle") &&
  (value.was === undefined || (value.was !== "gone" && ACTIVITY_STATES.includes(value.was)));

/** A trouble's kind, and its quoted words (core quotes at most 160 characters). */
const TROUBLE_KIND = /^[a-z][a-z-]{0,31}$/;
export const isTrouble = (value: unknown): value is Trouble =>
  isObject(value) &&
  typeof value.kind === "string" &&
  TROUBLE_KIND.test(value.kind) &&
  typeof value.words === "string" &&
  value.words.length <= 400 &&
  isTime(value.at);

export const isEnded = (value: unknown): value is Ended =>
  isObject(value) && isTime(value.at) && (value.by === "stop" || value.by === "down");

/**
 * The activity a record holds; one written before signals had names (`busy`/`idle`) is read as
 * such, and one that does not parse is no word at all: the member is still shown, its activity not.
 */
function readActivity(value: unknown): Activity | undefined {
  if (value === undefined) return undefined;
  if (isActivity(value)) return value;
  if (isObject(value) && (value.state === "busy" || value.state === "idle") && isTime(value.at))
    return {
      state: value.state === "busy" ? "working" : "idle",
      since: value.at,
      at: value.at,
      signal: "muster/legacy",
    };
  return undefined;
}

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
  const activity = readActivity(record.activity);
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
    (record.engineHome === undefined || typeof record.engineHome === "string") &&
    isTime(record.joinedAt) &&
    isTime(record.heartbeatAt) &&
    (record.alertedAt === undefined || isTime(record.alertedAt));
  // A mark that does not parse is no mark: the member is judged as if none were left.
  const ended = isEnded(record.ended) ? record.ended : undefined;
  const trouble = isTrouble(record.trouble) ? record.trouble : undefined;
  return valid
    ? { ok: true, value: { ...record, activity, ended, trouble } as SessionRecord }
    : { ok: false, error: "is missing fields a session record needs" };
}
