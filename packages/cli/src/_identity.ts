// Who is asking: the agent this shell belongs to. Walk up from the command's parent to the nearest
// process a discovery rule recognises (Codex, Claude Code, …); with none, the parent shell. Its pid
// and start time make a stable member id, so every `muster` call from one agent is one member.
import { BUILTIN_ENGINES, matchEngine } from "@muster/reconciler";
import type { Context } from "./_context.js";

export type Caller = {
  id: string;
  pid: number;
  start: string;
  agent: string;
  engine: string | undefined;
};

type Row = { pid: number; ppid: number; start: string; name: string; argv: readonly string[] };

/** The nearest recognised agent above `from` (inclusive), else the process `from` itself. */
export function findCaller(rows: readonly Row[], from: number): Omit<Caller, "id"> | undefined {
  const byPid = new Map(rows.map((row) => [row.pid, row]));
  const seen = new Set<number>();
  for (
    let row = byPid.get(from);
    row && !seen.has(row.pid) && row.pid > 1;
    row = byPid.get(row.ppid)
  ) {
    seen.add(row.pid);
    const engine = matchEngine(row, BUILTIN_ENGINES);
    if (engine) return { pid: row.pid, start: row.start, agent: engine, engine };
  }
  const parent = byPid.get(from);
  return parent
    ? { pid: parent.pid, start: parent.start, agent: parent.name || "shell", engine: undefined }
    : undefined;
}

export const callerId = (caller: Omit<Caller, "id">) =>
  `${caller.engine ?? "shell"}-${caller.pid}-${caller.start}`;

/** The caller as a member: `--id` wins for the id; the process is always the real ancestor. */
export async function resolveCaller(context: Context, explicitId?: string): Promise<Caller> {
  const rows = await context.processes();
  const found = findCaller(rows, process.ppid);
  if (!found) {
    throw new Error("cannot find this command's parent process in the process table; pass --id");
  }
  return { ...found, id: explicitId ?? callerId(found) };
}
