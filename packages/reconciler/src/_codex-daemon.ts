// Codex's app-server daemon, as the process table shows it (Codex 0.171.0, measured): the first
// Codex TUI of a Codex home starts `<home>/packages/app-server-daemon/releases/<version>/bin/codex
// app-server … --managed-daemon` and its `… app-server daemon pid-update-loop` as its own children,
// re-parented to pid 1 when that TUI exits; they serve every Codex TUI of that home and sit in no
// pane. Which of them a spawned Codex started is proven by ancestry, while it still runs.

/** The fields of a process row this reads. */
export type DaemonRow = { pid: number; ppid: number; start: string; argv: readonly string[] };

/** A Codex app-server process: its pid and start time, and the Codex home it runs from. */
export type CodexDaemon = { pid: number; start: string; codexHome: string };

const DAEMON_PATH = /^(.*)\/packages\/app-server-daemon\/releases\/[^/]+\/bin\/codex$/;

/** The Codex home of an app-server process (the daemon or its updater), else undefined. */
export function codexDaemonHome(row: Pick<DaemonRow, "argv">): string | undefined {
  const home = DAEMON_PATH.exec(row.argv[0] ?? "")?.[1];
  return home && row.argv.includes("app-server") ? home : undefined;
}

/** The Codex app-server processes below `root` (a spawned pane's process): the ones it started. */
export function codexDaemonsBelow(rows: readonly DaemonRow[], root: number): CodexDaemon[] {
  const children = new Map<number, DaemonRow[]>();
  for (const row of rows) children.set(row.ppid, [...(children.get(row.ppid) ?? []), row]);
  const found: CodexDaemon[] = [];
  const seen = new Set<number>();
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      const codexHome = codexDaemonHome(child);
      if (codexHome) found.push({ pid: child.pid, start: child.start, codexHome });
      else walk(child.pid);
    }
  };
  walk(root);
  return found;
}
