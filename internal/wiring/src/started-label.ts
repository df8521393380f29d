// The label the caller's own engine process was started with, as the MCP server asks it for a
// Codex thread (whose server has the first window's environment): the process table with each
// row's engine, and the start-time environment of the processes core's `startedPids` names, handed
// to core's `startedLabel` (the rule). Where /proc is missing (not Linux) the answer is
// `unsupported`, and the server's own MUSTER_LABEL answers as before.
import { type EnvironRead, type StartedLabel, startedLabel, startedPids } from "@muster/core";
import { type ProcessRow, processEnviron } from "@muster/node";
import { BUILTIN_ENGINES, matchEngine } from "@muster/reconciler";

/** The caller as its door found it: its engine and its agent's process, with that start time. */
export type StartedCaller = { engine: string; pid: number; start: string };

export type StartedEffects = {
  processes: () => Promise<readonly ProcessRow[]>;
  /** A process's environment at its start (default: /proc's, `@muster/node`'s `processEnviron`). */
  environ?: ((pid: number) => EnvironRead) | undefined;
};

/** What the caller's own engine process was started with (core's `StartedLabel`). */
export async function startedLabelOf(
  caller: StartedCaller,
  effects: StartedEffects,
): Promise<StartedLabel> {
  // A table that cannot be read decides nothing: a refusal, never the server's environment.
  const rows = await effects.processes().catch(() => undefined);
  if (!rows) return startedLabel(caller, [], new Map());
  const processes = rows.map((row) => ({ ...row, engine: matchEngine(row, BUILTIN_ENGINES) }));
  const environ = effects.environ ?? processEnviron;
  const reads = new Map(startedPids(caller, processes).map((pid) => [pid, environ(pid)]));
  return startedLabel(caller, processes, reads);
}
