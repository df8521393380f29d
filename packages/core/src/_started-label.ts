// The label a caller's own engine process was started with (its MUSTER_LABEL, as the process's
// environment at its start shows it), for an engine whose MCP server does not carry the caller's
// environment: Codex 0.171.0 runs one app-server daemon per HOME and starts every thread's server
// with the first window's. The environment is read as hostile (whoever started the process wrote
// it): it counts only from processes that are provably the caller's own now, and every one of them
// must name the same valid label. A check that cannot decide refuses; only a platform with no way
// to read it ("unsupported") lets the server's own MUSTER_LABEL answer, as before.

/** A label as the roster accepts it (the same rule as `chooseLabel`'s callers meet at join). */
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

/** The engines whose MCP server is started with another window's environment. */
const SHARED_SERVER_ENGINES: readonly string[] = ["codex"];

/** A process as the rule reads the table: its engine as discovery names it, if any. */
export type StartedProcess = {
  pid: number;
  ppid: number;
  start: string;
  engine: string | undefined;
  argv: readonly string[];
};

/**
 * A daemon serving many windows (Codex's `app-server`, and its `pid-update-loop`): not any one
 * caller's launch, and every thread's MCP server and tool commands run under it.
 */
export const isCodexDaemon = (row: { argv: readonly string[] }) => row.argv.includes("app-server");

/** The most processes one check reads: a table naming more under one caller refuses. */
export const MAX_STARTED_PIDS = 16;

/** One read of a process's environment at its start, and its start time read after it. */
export type EnvironRead =
  | { ok: true; environ: string; start: string | undefined }
  | { ok: false; reason: "unsupported" | "unreadable" };

export type StartedCaller = { engine: string; pid: number; start: string };

export type StartedLabel =
  | { ok: true; label: string }
  | {
      ok: false;
      /**
       * `own-env`: the engine's server has its caller's environment (no question to ask);
       * `unsupported`: no environment can be read here; the rest are refusals.
       */
      reason:
        | "own-env"
        | "unsupported"
        | "unreadable"
        | "no-process"
        | "reused"
        | "bad-label"
        | "unset"
        | "ambiguous"
        | "too-many";
    };

/**
 * Does `pid` run under `ancestor` (or is it) with no daemon between them? Follows parents, never
 * round a loop. The first window's TUI is the daemon's parent: what runs under the daemon is any
 * thread's (its MCP servers, its tools), never the caller's own launch.
 */
function ownDescendant(
  rows: ReadonlyMap<number, StartedProcess>,
  pid: number,
  ancestor: number,
): boolean {
  const seen = new Set<number>();
  for (let current: number | undefined = pid; current !== undefined && current > 0; ) {
    const row = rows.get(current);
    if (!row || isCodexDaemon(row)) return false;
    if (current === ancestor) return true;
    if (seen.has(current)) return false;
    seen.add(current);
    current = row.ppid;
  }
  return false;
}

/**
 * The processes whose environments `startedLabel` reads: the caller's engine process and every
 * process of its engine under it (a wrapper's native binary, a nested TUI), never a daemon nor
 * anything under one. Empty when the engine's server has its caller's environment, or the caller's
 * own row is not its engine's (then processes under it alone would decide). The caller's own
 * first; at most one past
 * `MAX_STARTED_PIDS`, so that a check past the cap reads no more before it refuses.
 */
export function startedPids(caller: StartedCaller, processes: readonly StartedProcess[]): number[] {
  if (!SHARED_SERVER_ENGINES.includes(caller.engine)) return [];
  const rows = new Map(processes.map((row) => [row.pid, row]));
  const own = rows.get(caller.pid);
  if (own?.engine !== caller.engine || isCodexDaemon(own)) return [];
  const under = processes
    .filter((row) => row.pid !== caller.pid && row.engine === caller.engine)
    .filter((row) => ownDescendant(rows, row.pid, caller.pid))
    .map((row) => row.pid);
  return [caller.pid, ...under].slice(0, MAX_STARTED_PIDS + 1);
}

/** MUSTER_LABEL in one environment block (`NAME=value` entries split by NUL), or why not. */
function labelIn(environ: string): { ok: true; label: string | undefined } | { ok: false } {
  const values = new Set(
    environ
      .split("\0")
      .filter((entry) => entry.startsWith("MUSTER_LABEL="))
      .map((entry) => entry.slice("MUSTER_LABEL=".length)),
  );
  // Two different values in one block: which one the process reads is not ours to guess.
  if (values.size > 1) return { ok: false };
  const [label] = values;
  if (label === undefined || label === "") return { ok: true, label: undefined };
  return LABEL.test(label) ? { ok: true, label } : { ok: false };
}

/**
 * The label the caller's own engine process was started with. `processes` is the table the caller
 * was found in; `reads` the environment of each of `startedPids`. A process whose start time now is
 * not the table's (its pid reused) proves nothing, nor does a table that lost the caller; processes
 * that name different labels (or one none) name no one.
 */
export function startedLabel(
  caller: StartedCaller,
  processes: readonly StartedProcess[],
  reads: ReadonlyMap<number, EnvironRead>,
): StartedLabel {
  if (!SHARED_SERVER_ENGINES.includes(caller.engine)) return { ok: false, reason: "own-env" };
  const own = processes.find((row) => row.pid === caller.pid);
  if (!own || own.start !== caller.start) return { ok: false, reason: "no-process" };
  const pids = startedPids(caller, processes);
  // The caller's own row, still its engine's, is read first: what runs under it never decides alone.
  if (pids[0] !== caller.pid) return { ok: false, reason: "no-process" };
  if (pids.length > MAX_STARTED_PIDS) return { ok: false, reason: "too-many" };
  const labels = new Set<string | undefined>();
  for (const pid of pids) {
    const read = reads.get(pid);
    if (!read) return { ok: false, reason: "unreadable" };
    if (!read.ok) return { ok: false, reason: read.reason };
    const row = processes.find((candidate) => candidate.pid === pid);
    if (read.start === undefined || read.start !== row?.start)
      return { ok: false, reason: "reused" };
    const found = labelIn(read.environ);
    if (!found.ok) return { ok: false, reason: "bad-label" };
    labels.add(found.label);
  }
  if (labels.size > 1) return { ok: false, reason: "ambiguous" };
  const [label] = labels;
  return label === undefined ? { ok: false, reason: "unset" } : { ok: true, label };
}
