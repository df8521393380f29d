// The label the caller's own engine process was started with, as the MCP server asks it for a
// Codex thread (whose server has the first window's environment): the process table with each
// row's engine, and the start-time environment of the processes core's `startedPids` names, handed
// to core's `startedLabel` (the rule). Where /proc is missing (not Linux) the answer is
// `unsupported`, and the server's own MUSTER_LABEL answers as before.
import type { StartedLabel } from "@muster/core";
import { type EnvironRead, startedLabel, startedPids } from "@muster/core/internal";
import { type ProcessRow, processEnviron } from "@muster/node";
import { BUILTIN_ENGINES, matchEngine } from "@muster/reconciler";

/** The caller as its door found it: its engine and its agent's process, with that start time. */
export type StartedCaller = { engine: string; pid: number; start: string };

export type StartedEffects = {
  processes: () => Promise<readonly ProcessRow[]>;
  /** A process's environment at its start (default: /proc's, `@muster/node`'s `processEnviron`). */
  environ?: ((pid: number) => EnvironRead) | undefined;
  /** How long the table may take before the check refuses (default `STARTED_READ_MS`). */
  boundMs?: number | undefined;
};

/** The longest a caller's first call waits on the process table for this check. */
export const STARTED_READ_MS = 3_000;

/** The table, or `undefined` when it cannot be read or does not come within `ms`. */
async function tableWithin(
  read: () => Promise<readonly ProcessRow[]>,
  ms: number,
): Promise<readonly ProcessRow[] | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([read().catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the caller's own engine process was started with (core's `StartedLabel`). */
export async function startedLabelOf(
  caller: StartedCaller,
  effects: StartedEffects,
): Promise<StartedLabel> {
  // A table that cannot be read (or comes too late) decides nothing: a refusal, never the server's
  // environment. The environments read are core's `startedPids`, at most one past its cap.
  const rows = await tableWithin(effects.processes, effects.boundMs ?? STARTED_READ_MS);
  if (!rows) return startedLabel(caller, [], new Map());
  const processes = rows.map((row) => ({ ...row, engine: matchEngine(row, BUILTIN_ENGINES) }));
  const environ = effects.environ ?? processEnviron;
  const reads = new Map(startedPids(caller, processes).map((pid) => [pid, environ(pid)]));
  return startedLabel(caller, processes, reads);
}
