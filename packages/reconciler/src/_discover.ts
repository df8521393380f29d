// Discovery: one pane inventory × one process table → the agents in panes. Pure and linear in
// panes plus processes: the table is indexed by parent once, and each pane walks only its subtree.
import { type EngineRule, matchEngine } from "./_engines.js";

/** As much of a tmux pane as discovery reads (the inventory of @muster/tmux fits). */
export type PaneFacts = {
  id: string;
  pid: number;
  dead: boolean;
  path: string;
  sessionId: string;
  sessionName: string;
};

/** One process: pid, parent, start time (clock ticks or any stable string), command name, argv. */
export type ProcessRow = {
  pid: number;
  ppid: number;
  start: string;
  name: string;
  argv: readonly string[];
};

export type Snapshot = {
  panes: readonly PaneFacts[];
  processes: readonly ProcessRow[];
  /** The scanner's own pids: never an agent. */
  exclude?: readonly number[] | undefined;
  /** Which server these panes belong to (its socket path); qualifies each seat key. */
  server?: string | undefined;
};

/** An agent: engine + pid + start time is its identity, so a reused pid is a different agent. */
export type FoundAgent = {
  engine: string;
  pid: number;
  start: string;
  identity: string;
  /** Where it sits: server and pane, as one string. */
  seatKey: string;
  server: string | undefined;
  pane: string;
  session: string;
  sessionName: string;
  cwd: string;
  argv: readonly string[];
  /** How far below the pane's own process it runs (0 = the pane process itself). */
  depth: number;
};

export type AmbiguousSeat = {
  seatKey: string;
  pane: string;
  candidates: { engine: string; pid: number }[];
};

export type Discovery = { agents: FoundAgent[]; ambiguous: AmbiguousSeat[] };

export const identityOf = (engine: string, pid: number, start: string) =>
  `${engine}:${pid}:${start}`;
export const seatKeyOf = (server: string | undefined, pane: string) =>
  server ? `${server}#${pane}` : pane;

/** Find the agents in the snapshot's panes. The shallowest match under a pane owns it; a tie is ambiguous. */
export function discoverAgents(snapshot: Snapshot, engines: readonly EngineRule[]): Discovery {
  const children = new Map<number, ProcessRow[]>();
  const byPid = new Map<number, ProcessRow>();
  for (const row of snapshot.processes) {
    byPid.set(row.pid, row);
    const siblings = children.get(row.ppid);
    if (siblings) siblings.push(row);
    else children.set(row.ppid, [row]);
  }
  const excluded = new Set(snapshot.exclude ?? []);
  const agents: FoundAgent[] = [];
  const ambiguous: AmbiguousSeat[] = [];
  for (const pane of snapshot.panes) {
    if (pane.dead) continue;
    const root = byPid.get(pane.pid);
    if (!root) continue;
    const seatKey = seatKeyOf(snapshot.server, pane.id);
    // Breadth first, one level at a time: stop at the first level with a match.
    let level: ProcessRow[] = [root];
    const visited = new Set<number>();
    for (let depth = 0; level.length > 0; depth += 1) {
      const matches: { row: ProcessRow; engine: string }[] = [];
      const next: ProcessRow[] = [];
      for (const row of level) {
        if (visited.has(row.pid)) continue;
        visited.add(row.pid);
        const engine = excluded.has(row.pid) ? undefined : matchEngine(row, engines);
        if (engine) matches.push({ row, engine });
        next.push(...(children.get(row.pid) ?? []));
      }
      if (matches.length === 1) {
        const { row, engine } = matches[0]!;
        agents.push({
          engine,
          pid: row.pid,
          start: row.start,
          identity: identityOf(engine, row.pid, row.start),
          seatKey,
          server: snapshot.server,
          pane: pane.id,
          session: pane.sessionId,
          sessionName: pane.sessionName,
          cwd: pane.path,
          argv: row.argv,
          depth,
        });
        break;
      }
      if (matches.length > 1) {
        ambiguous.push({
          seatKey,
          pane: pane.id,
          candidates: matches.map(({ row, engine }) => ({ engine, pid: row.pid })),
        });
        break;
      }
      level = next;
    }
  }
  return { agents, ambiguous };
}
