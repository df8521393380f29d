// What muster spawned: the record it keeps of each pane it opened (pane id, server pid, and the
// process it started, with that process's start time), and the one decision `stop` makes with
// it. Pane ids are reused after a server restart and pids are reused too, so a pane is muster's to
// close only while all of them still agree.
import type { Pane } from "./_inventory.js";
import { PANE_ID, type ServerIdentity } from "./_server.js";

export type SpawnRecord = {
  v: 1;
  label: string;
  engine: string;
  /** The server's socket path and pid when muster opened the pane. */
  server: string;
  serverPid: number;
  pane: string;
  /** The process tmux started in the pane for muster, and its start time. */
  pid: number;
  start: string;
  cwd: string;
  /** Who asked: the spawner's pane, and its label when it had one. */
  by: { pane: string; label?: string | undefined };
  at: string;
  /** The git worktree `spawn --worktree` made for it (its path is `cwd`), and that branch. */
  worktree?: { path: string; branch: string } | undefined;
  /** Its engine session (pi's and Claude Code's id, Codex's thread): what `muster up` resumes. */
  session?: string | undefined;
  /** When `muster down` took it down (its pane closed; the record kept for the next `up`). */
  down?: string | undefined;
  /**
   * When a `muster down` or `muster stop` began ending it, written before it asks the engine to
   * quit: a down killed after that leaves it here, where the member's own leave on its way out
   * (which takes the roster's mark with its record) cannot remove it.
   */
  ending?: string | undefined;
  /** Its member id on the team when `down` took it off: where mail to it waits while it is down. */
  member?: string | undefined;
  /** The engine's own arguments it was started with, when they only choose its model. */
  args?: string[] | undefined;
};

const SESSION = /^[A-Za-z0-9][A-Za-z0-9-]{7,63}$/;

const LABEL = /^[A-Za-z0-9._-]{1,32}$/;
/** A member id as the roster takes one (letters, digits, `_` and `-`). */
const MEMBER = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const isText = (value: unknown, max = 4096): value is string =>
  typeof value === "string" && value.length <= max && !value.includes("\0");
const isPid = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0;

/** A record as written, or undefined when the text is not one (another process may write it). */
export function parseSpawnRecord(text: string): SpawnRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const by = record.by as Record<string, unknown> | undefined;
  const valid =
    record.v === 1 &&
    isText(record.label) &&
    LABEL.test(record.label) &&
    isText(record.engine, 64) &&
    isText(record.server) &&
    record.server.startsWith("/") &&
    isPid(record.serverPid) &&
    isText(record.pane) &&
    PANE_ID.test(record.pane) &&
    isPid(record.pid) &&
    isText(record.start, 64) &&
    record.start !== "" &&
    isText(record.cwd) &&
    isText(record.at, 64) &&
    typeof by === "object" &&
    by !== null &&
    isText(by.pane) &&
    (by.label === undefined || isText(by.label, 32));
  const worktree = record.worktree as Record<string, unknown> | undefined;
  const worktreeValid =
    worktree === undefined ||
    (typeof worktree === "object" &&
      worktree !== null &&
      isText(worktree.path) &&
      worktree.path.startsWith("/") &&
      isText(worktree.branch, 256) &&
      worktree.branch !== "");
  const session = record.session;
  const down = record.down;
  const ending = record.ending;
  const member = record.member;
  if (!valid || !worktreeValid) return undefined;
  if (member !== undefined && !(typeof member === "string" && MEMBER.test(member)))
    return undefined;
  if (session !== undefined && !(typeof session === "string" && SESSION.test(session)))
    return undefined;
  if (down !== undefined && !isText(down, 64)) return undefined;
  if (ending !== undefined && !isText(ending, 64)) return undefined;
  const args = record.args;
  if (
    args !== undefined &&
    !(Array.isArray(args) && args.length <= 32 && args.every((each) => isText(each, 256)))
  )
    return undefined;
  return {
    v: 1,
    label: record.label as string,
    engine: record.engine as string,
    server: record.server as string,
    serverPid: record.serverPid as number,
    pane: record.pane as string,
    pid: record.pid as number,
    start: record.start as string,
    cwd: record.cwd as string,
    by: { pane: by.pane as string, label: by.label as string | undefined },
    at: record.at as string,
    ...(worktree
      ? { worktree: { path: worktree.path as string, branch: worktree.branch as string } }
      : {}),
    ...(session === undefined ? {} : { session: session as string }),
    ...(down === undefined ? {} : { down: down as string }),
    ...(ending === undefined ? {} : { ending: ending as string }),
    ...(member === undefined ? {} : { member: member as string }),
    ...(args === undefined ? {} : { args: [...(args as string[])] }),
  };
}

export type StopScan =
  | { answered: false }
  | {
      answered: true;
      server: ServerIdentity;
      /** The pane with the record's id, if the server has one. */
      pane: Pane | undefined;
      /** The start time of the record's pid now, if that pid runs. */
      start: string | undefined;
    };

export type StopReason = "no-server" | "server-restarted" | "gone" | "not-ours";

/** What to do about each reason `decideStop` gives; none for a pane already gone. */
export const STOP_FIXES: Record<StopReason, string> = {
  "no-server": "check tmux is running, then retry",
  "server-restarted": "close it yourself if it is yours",
  gone: "",
  "not-ours": "close it yourself if it is yours",
};

export type StopDecision =
  | { ok: true; pane: string; pid: number }
  | {
      ok: false;
      reason: StopReason;
      /** What happened; `fix` says what to do (empty when nothing is left to do). */
      error: string;
      fix: string;
      /** The record describes nothing that exists any more: it may be forgotten. */
      forget: boolean;
    };

/** May `stop` close this record's pane? Only while server, pane and process all still agree. */
export function decideStop(record: SpawnRecord, scan: StopScan): StopDecision {
  const name = `${record.label} (pane ${record.pane})`;
  if (!scan.answered)
    return {
      ok: false,
      reason: "no-server",
      error: `the tmux server at ${record.server} did not answer; ${name} was not touched`,
      fix: STOP_FIXES["no-server"],
      forget: false,
    };
  if (scan.server.pid !== record.serverPid || scan.server.socket !== record.server)
    return {
      ok: false,
      reason: "server-restarted",
      error: `the tmux server restarted since muster opened ${name}: pane ids are reused, so it is not closed`,
      fix: STOP_FIXES["server-restarted"],
      forget: true,
    };
  if (!scan.pane)
    return {
      ok: false,
      reason: "gone",
      error: `${name} is already closed`,
      fix: STOP_FIXES.gone,
      forget: true,
    };
  // A pane kept after its program ended (remain-on-exit) still names the pid it started, and no
  // process can be put in it without respawn-pane, which makes it live with a new pid: it is ours.
  const keptDead = scan.pane.dead && scan.pane.pid === record.pid && scan.start === undefined;
  if (!keptDead && (scan.pane.pid !== record.pid || scan.start !== record.start))
    return {
      ok: false,
      reason: "not-ours",
      error: `pane ${record.pane} no longer runs the process muster started for ${record.label}: not closed`,
      fix: STOP_FIXES["not-ours"],
      forget: true,
    };
  return { ok: true, pane: record.pane, pid: record.pid };
}
