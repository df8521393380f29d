// How busy a process tree is at one moment: the CPU time its processes have used so far, and
// whether any of them is running. The typed nudge reads it twice to tell an idle agent from a
// busy one. Linux /proc only; elsewhere there is no answer (undefined), and no nudge.
import { readdirSync, readFileSync } from "node:fs";

export type TreeActivity = { cpuTicks: number; running: boolean };

type Stat = { pid: number; ppid: number; state: string; ticks: number };

/** /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function readStat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
    return { pid, ppid: Number(fields[1]), state: fields[0] ?? "?", ticks };
  } catch {
    return undefined; // exited since the listing
  }
}

/** The activity of `root` and every process below it, or undefined without /proc. */
export function treeActivity(root: number): TreeActivity | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const stats = entries
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid > 0)
    .map(readStat)
    .filter((stat): stat is Stat => stat !== undefined);
  const rootStat = stats.find((stat) => stat.pid === root);
  if (!rootStat) return undefined;
  const children = new Map<number, Stat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  let cpuTicks = 0;
  let running = false;
  const queue = [rootStat];
  for (let next = queue.shift(); next; next = queue.shift()) {
    cpuTicks += next.ticks;
    // R: running or runnable; D: in uninterruptible I/O. Either way not waiting for its user.
    if (next.state === "R" || next.state === "D") running = true;
    queue.push(...(children.get(next.pid) ?? []));
  }
  return { cpuTicks, running };
}
