// Who is asking and where it sits. The caller is the agent a command belongs to (the core rule,
// with the reconciler's engine rules recognising agents); its seat is the tmux pane among its
// ancestors, proven from one pane listing and the process table rather than trusted from
// $TMUX_PANE, which an agent hosted by a daemon inherits from another pane.
import { type CallerResult, findCaller } from "@muster/core/internal";
import {
  createTmuxRunner,
  type ProcessRow,
  readProcessAncestry,
  readProcessTable,
} from "@muster/node";
import { BUILTIN_ENGINES, discoverAgents, matchEngine } from "@muster/reconciler";
import {
  findProcessSeat,
  type Pane,
  parseTmuxEnv,
  type SeatResult,
  type ServerTarget,
  type TmuxRunner,
} from "@muster/tmux";
import { errorMessage } from "./error-message.ts";

/** Every process, or the reason the table cannot be read (which proves nothing). */
export async function processRows(
  options: {
    /** Only this process and those above it: all that finding its caller reads (a hook's). */
    above?: number | undefined;
  } = {},
): Promise<
  | { ok: true; processes: ProcessRow[] }
  | { ok: false; reason: "no-process-table"; error: string; fix: string }
> {
  const table =
    options.above === undefined
      ? await readProcessTable()
      : await readProcessAncestry(options.above);
  return table.ok
    ? { ok: true, processes: table.processes }
    : {
        ok: false,
        reason: "no-process-table",
        error: `cannot read the process table: ${table.error}`,
        fix: table.fix,
      };
}

/**
 * The agent `from` belongs to: the nearest recognised engine above it, else the nearest process
 * above the wrappers (pnpm, npx, `sh -c`) — or why there is none.
 */
export function findMyAgent(processes: readonly ProcessRow[], from: number): CallerResult {
  return findCaller(processes, from, (row) => matchEngine(row, BUILTIN_ENGINES));
}

/**
 * Does `engine` run in a pane (its own process, or the shallowest agent below it)? The process
 * table's answer that a pane title (written by anything in the pane) never gives: hand it to
 * seatByCodexThread as `runsCodex`.
 */
export function paneRuns(
  processes: readonly ProcessRow[],
  engine: string,
  exclude: readonly number[] = [],
): (pane: Pane) => boolean {
  return (pane) =>
    discoverAgents({ panes: [pane], processes, exclude }, BUILTIN_ENGINES).agents[0]?.engine ===
    engine;
}

export type FindMySeatOptions = {
  /** The agent's process: pi itself, or the caller a command belongs to. */
  pid: number;
  /** The process table, when already read. */
  processes?: readonly ProcessRow[] | undefined;
  /** $TMUX and $TMUX_PANE. Default: process.env. */
  env?: NodeJS.ProcessEnv | undefined;
  /** The server to ask. Default: the one $TMUX names. */
  target?: ServerTarget;
  /**
   * Outside tmux (no $TMUX) and with no target: ask tmux's default server (the CLI does: its caller
   * may be an agent whose environment lost $TMUX), or do not look at all (the default).
   */
  defaultServer?: boolean | undefined;
  run?: TmuxRunner | undefined;
};

/** Where the agent sits: its seat, or why none was found. Never throws. */
export async function findMySeat(
  options: FindMySeatOptions,
): Promise<
  | SeatResult
  | { ok: false; reason: "outside-tmux"; error: string; fix: string }
  | { ok: false; reason: "no-process-table"; error: string }
> {
  const here = parseTmuxEnv(options.env ?? process.env);
  const target = options.target ?? (here ? { socket: here.server.socket } : undefined);
  if (target === undefined && !here && !options.defaultServer)
    return {
      ok: false,
      reason: "outside-tmux",
      error: "this session runs outside tmux",
      fix: "run it from a pane in tmux",
    };
  let processes = options.processes;
  if (!processes) {
    const rows = await processRows();
    if (!rows.ok) return rows;
    processes = rows.processes;
  }
  try {
    return await findProcessSeat(options.run ?? createTmuxRunner(), processes, options.pid, {
      target,
      claimedPane: here?.pane,
    });
  } catch (error) {
    // A tmux killed by a signal is no answer: no seat, and the join goes on without one.
    return {
      ok: false,
      reason: "no-server",
      error: errorMessage(error),
      fix: "check the tmux server is running, then retry",
    };
  }
}
