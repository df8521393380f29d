// Who is asking: the agent a command belongs to. From the command's parent, walk up to the nearest
// process an engine rule recognises (Codex, Claude Code, …); with none, the parent itself. Its pid
// and start time make a stable member id, so every call from one agent is one member.

/** One process, as much as the caller rule reads (the process rows of @muster/node fit). */
export type CallerProcess = {
  pid: number;
  ppid: number;
  start: string;
  name: string;
  argv: readonly string[];
};

/** The agent a command belongs to: its process, and the engine recognised (none for a shell). */
export type Caller = { pid: number; start: string; agent: string; engine: string | undefined };

/**
 * The nearest recognised agent above `from` (inclusive), else the process `from` itself; undefined
 * when `from` is not in the table. A parent loop in the table ends the walk.
 */
export function findCaller(
  processes: readonly CallerProcess[],
  from: number,
  recognise: (process: CallerProcess) => string | undefined,
): Caller | undefined {
  const byPid = new Map(processes.map((row) => [row.pid, row]));
  const seen = new Set<number>();
  for (
    let row = byPid.get(from);
    row && !seen.has(row.pid) && row.pid > 1;
    row = byPid.get(row.ppid)
  ) {
    seen.add(row.pid);
    const engine = recognise(row);
    if (engine) return { pid: row.pid, start: row.start, agent: engine, engine };
  }
  const parent = byPid.get(from);
  return parent
    ? { pid: parent.pid, start: parent.start, agent: parent.name || "shell", engine: undefined }
    : undefined;
}

/** The member id of a caller: engine (or `shell`), pid and start time. */
export const callerId = (caller: Caller): string =>
  `${caller.engine ?? "shell"}-${caller.pid}-${caller.start}`;
