// Synthetic snapshots for discovery tests and benchmarks: `panes` panes, each a shell with 9
// children, an agent-like `node …/pi-coding-agent/…` in every other pane.
export const SYNTHETIC_AGENT =
  "/usr/lib/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js";

type Row = { pid: number; ppid: number; start: string; name: string; argv: string[] };
type PaneRow = {
  id: string;
  pid: number;
  dead: boolean;
  path: string;
  sessionId: string;
  sessionName: string;
};

export function syntheticSnapshot(panes: number): { panes: PaneRow[]; processes: Row[] } {
  const processes: Row[] = [{ pid: 1, ppid: 0, start: "1", name: "init", argv: ["/sbin/init"] }];
  const paneRows: PaneRow[] = [];
  let pid = 100;
  for (let index = 0; index < panes; index += 1) {
    pid += 1;
    const shell = pid;
    processes.push({ pid: shell, ppid: 1, start: "5", name: "bash", argv: ["-bash"] });
    paneRows.push({
      id: `%${index}`,
      pid: shell,
      dead: false,
      path: `/work/${index}`,
      sessionId: "$0",
      sessionName: "main",
    });
    for (let child = 0; child < 9; child += 1) {
      pid += 1;
      const agent = index % 2 === 1 && child === 0;
      processes.push({
        pid,
        ppid: shell,
        start: "7",
        name: agent ? "node" : "sleep",
        argv: agent ? ["node", SYNTHETIC_AGENT] : ["sleep", "60"],
      });
    }
  }
  return { panes: paneRows, processes };
}
