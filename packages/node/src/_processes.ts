// The process table and process liveness. On Linux, one pass over /proc in-process (start times in
// clock ticks since boot); elsewhere `ps`. A table that cannot be read is an error value, never an
// empty table; a fact that cannot be had is "unknown", which proves nothing.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { runProgram } from "./_exec.js";

/** One process, as discovery and seat resolution read it. */
export type ProcessRow = { pid: number; ppid: number; start: string; name: string; argv: string[] };

export type ProcessTable =
  | { ok: true; processes: ProcessRow[]; source: "proc" | "ps" }
  | { ok: false; error: string; fix: string };

/** What to do when the table cannot be read: defined here, beside the read. */
const PROCESS_TABLE_FIX = "muster needs /proc (Linux) or ps on the PATH to find agents";

/**
 * The inodes process `pid` watches with inotify (Linux: the watches its /proc/<pid>/fdinfo lists;
 * the same user); undefined where that cannot be read (no /proc, another user's, gone). A watch
 * proves a watcher is set on a folder, by inode alone (the device is not compared).
 */
export function inotifyWatches(pid: number): Set<number> | undefined {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fdinfo`);
  } catch {
    return undefined;
  }
  const inodes = new Set<number>();
  for (const fd of fds) {
    let info: string;
    try {
      info = readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8");
    } catch {
      continue;
    }
    for (const match of info.matchAll(/^inotify wd:[0-9a-f]+ ino:([0-9a-f]+) /gm))
      inodes.add(Number.parseInt(match[1]!, 16));
  }
  return inodes;
}

/** Whether this system has /proc, asked once: liveness is checked per member on every read. */
let procPresent: boolean | undefined;
const hasProc = () => {
  if (procPresent === undefined) {
    try {
      readFileSync("/proc/self/stat");
      procPresent = true;
    } catch {
      procPresent = false;
    }
  }
  return procPresent;
};

/** Fields after the command name in /proc/<pid>/stat; the name may hold spaces and parentheses. */
function parseStat(stat: string) {
  const close = stat.lastIndexOf(")");
  const fields = stat.slice(close + 2).split(" ");
  return {
    name: stat.slice(stat.indexOf("(") + 1, close),
    state: fields[0] ?? "",
    ppid: Number(fields[1]),
    start: fields[19] ?? "",
  };
}

/** One process from /proc; throws when it is gone. */
function procRow(pid: number): ProcessRow {
  const { name, ppid, start } = parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  const argv = cmdline === "" ? [] : cmdline.replace(/\0$/, "").split("\0");
  return { pid, ppid, start, name, argv };
}

/**
 * One process from /proc with its argv read when first asked (a cmdline read is most of a pass
 * over /proc): empty when the process is gone by then, or its pid is another process's.
 */
function procRowArgvLater(pid: number): ProcessRow {
  const { name, ppid, start } = parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  let argv: string[] | undefined;
  const row = { pid, ppid, start, name } as ProcessRow;
  Object.defineProperty(row, "argv", {
    enumerable: true,
    get() {
      if (argv) return argv;
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        const same = parseStat(readFileSync(`/proc/${pid}/stat`, "utf8")).start === start;
        argv = same && cmdline !== "" ? cmdline.replace(/\0$/, "").split("\0") : [];
      } catch {
        argv = [];
      }
      return argv;
    },
  });
  return row;
}

function readProc(argvLater = false): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      rows.push(argvLater ? procRowArgvLater(pid) : procRow(pid));
    } catch {
      // exited between the listing and the read
    }
  }
  return rows;
}

/** `ps` where there is no /proc: start time as ps prints it, argv split on spaces (ps joins them). */
async function readPs(): Promise<ProcessRow[]> {
  const env = { ...process.env, LC_ALL: "C" };
  const result = await runProgram("ps", ["-axo", "pid=,ppid=,lstart=,comm=,args="], { env });
  if (result.status !== 0) throw new Error(result.stderr || `ps exited ${result.status}`);
  return result.stdout
    .split("\n")
    .map((line) =>
      /^\s*(\d+)\s+(\d+)\s+(\w{3} \w{3}\s+\d+ [\d:]{8} \d{4})\s+(\S+)\s*(.*)$/.exec(line),
    )
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({
      pid: Number(match[1]),
      ppid: Number(match[2]),
      start: match[3]!.replace(/\s+/g, " "),
      name: match[4]!.slice(match[4]!.lastIndexOf("/") + 1),
      argv: match[5] ? match[5].split(" ") : [],
    }));
}

/**
 * Every process, in one pass. `argvLater`: each row's argv read when first asked, for a caller
 * that asks right away and for a few rows (a pane's processes); a gone process's argv is empty.
 */
export async function readProcessTable(
  options: { argvLater?: boolean } = {},
): Promise<ProcessTable> {
  try {
    if (hasProc()) return { ok: true, processes: readProc(options.argvLater), source: "proc" };
    return { ok: true, processes: await readPs(), source: "ps" };
  } catch (error) {
    return {
      ok: false,
      error: error instanceof Error ? error.message : String(error),
      fix: PROCESS_TABLE_FIX,
    };
  }
}

/**
 * `pid` and the processes above it, up to pid 1: all that the caller rule reads (the nearest
 * agent above a command), in a few reads of /proc instead of one per process on the machine
 * (~17 ms of every hook Claude Code runs, more on a busy host). Elsewhere, the whole table.
 */
export async function readProcessAncestry(pid: number): Promise<ProcessTable> {
  if (!hasProc()) return readProcessTable();
  const rows: ProcessRow[] = [];
  const seen = new Set<number>();
  for (let at = pid; at > 0 && !seen.has(at); ) {
    seen.add(at);
    try {
      const row = procRow(at);
      rows.push(row);
      at = row.ppid;
    } catch {
      // Gone while it was read: the chain ends here, as it would in the whole table.
      break;
    }
  }
  return { ok: true, processes: rows, source: "proc" };
}

/** A process's start time (clock ticks since boot on Linux), or undefined when it is not there. */
export function processStart(pid: number): string | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8")).start;
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * A process's environment as it was at its start (/proc/<pid>/environ, Linux, the same user), and
 * its start time read after it: the caller compares that with the start it expects, so a pid
 * reused between the table and this read proves nothing. Without /proc: `unsupported`.
 */
export function processEnviron(
  pid: number,
):
  | { ok: true; environ: string; start: string | undefined }
  | { ok: false; reason: "unsupported" | "unreadable" } {
  if (!hasProc()) return { ok: false, reason: "unsupported" };
  if (!Number.isInteger(pid) || pid <= 0) return { ok: false, reason: "unreadable" };
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
    return { ok: true, environ, start: processStart(pid) };
  } catch {
    return { ok: false, reason: "unreadable" };
  }
}

export type ProcessFact = "alive" | "dead" | "unknown";

/**
 * Is this process (pid *and* start time) alive? A reused pid with another start time is dead, and
 * so is one that exited but is not reaped yet (a zombie); a pid without a start time to match
 * proves nothing (`unknown`), however long it runs. Without
 * /proc, `kill(pid, 0)` can prove only death (no such pid); a pid that exists is `unknown`.
 */
export function processAlive(pid: number, pidStart: string | undefined): ProcessFact {
  if (!Number.isInteger(pid) || pid <= 0) return "unknown";
  if (hasProc()) {
    try {
      const stat = parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
      // A zombie has exited: it runs nothing, and only waits for its parent to reap it. A first
      // thread that exited alone shows Z too while the process's other threads (in its task
      // folder beside it) run: not ended.
      if (/[ZX]/.test(stat.state) && readdirSync(`/proc/${pid}/task`).length < 2) return "dead";
      if (pidStart === undefined) return "unknown";
      return pidStart === stat.start ? "alive" : "dead";
    } catch (error) {
      return (error as { code?: string }).code === "ENOENT" ? "dead" : "unknown";
    }
  }
  try {
    process.kill(pid, 0);
    return "unknown";
  } catch (error) {
    return (error as { code?: string }).code === "ESRCH" ? "dead" : "unknown";
  }
}

/**
 * Where this process's pids mean something: the boot (a reboot reuses every pid) and the pid
 * namespace (a container or `unshare` has its own). Undefined where neither can be read.
 */
let placeOnce: string | undefined | null = null;
export function processPlace(): string | undefined {
  if (placeOnce !== null) return placeOnce;
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const namespace = readlinkSync("/proc/self/ns/pid");
    placeOnce = `boot ${boot} ${namespace}`;
  } catch {
    placeOnce = undefined;
  }
  return placeOnce;
}

/** This process, as a lock it takes names it: its pid and start time (read once). */
let selfOnce: { pid: number; pidStart: string | undefined } | undefined;
export function processSelf(): { pid: number; pidStart: string | undefined } {
  if (selfOnce?.pid !== process.pid) {
    let pidStart: string | undefined;
    try {
      pidStart = processStart(process.pid);
    } catch {
      pidStart = undefined;
    }
    selfOnce = { pid: process.pid, pidStart };
  }
  return selfOnce;
}

/** The process facts `openRoster({ processes })` takes. */
export const processFacts = { alive: processAlive, place: processPlace, self: processSelf };
