// The test run's janitor (the root vitest.config.ts's global set-up): every process a test starts
// is the run's, and when the run ends any of them still alive that is not one of Vitest's own
// workers is ended by pid and named on stderr. Vitest waits for every process that holds a
// worker's output: one `muster mcp` a test left running held CI for an hour after its last test
// passed. A process is the run's when its environment holds this run's mark (every process a test
// starts inherits it), or when it lives in the run's own temporary folder: its working folder, or
// a path in its environment (HOME, TMPDIR), is under it. The second catches what an engine started
// with an environment of its own (Codex gives its MCP servers HOME and PATH and a few more, not the
// mark) and then detached (a `muster beat`): every test's scratch folders and throwaway HOMEs are
// made under TMPDIR, which the run points at that folder. Marks and folders are per run, so a run
// beside this one (another checkout's) is never touched. Linux only (/proc); elsewhere it ends
// nothing. The folder is removed at the end, with whatever a test left in it.
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export const RUN_MARK = "MUSTER_TEST_RUN";

export type Leaked = { pid: number; command: string };
/** What makes a process the run's: its mark (`NAME=value`), and its folder. */
export type Run = { mark: string; dir: string };

function read(file: string): string | undefined {
  try {
    return readFileSync(file, "latin1");
  } catch {
    return undefined;
  }
}

/** The parent pid from /proc/<pid>/stat (after the command's closing parenthesis). */
function parentOf(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  const fields = stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields ? Number(fields[1]) : undefined;
}

const inside = (file: string, dir: string) => file === dir || file.startsWith(`${dir}/`);

/** Whether process `pid` is the run's (see the file's head). */
function isRuns(pid: number, run: Run): boolean {
  let cwd: string | undefined;
  try {
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    cwd = undefined;
  }
  if (cwd && inside(cwd, run.dir)) return true;
  const environ = read(`/proc/${pid}/environ`)?.split("\0") ?? [];
  return environ.some(
    (entry) => entry === run.mark || inside(entry.slice(entry.indexOf("=") + 1), run.dir),
  );
}

/**
 * End every process of `run` except `keep` and their children (the runner and its workers, still
 * closing); what was ended.
 */
export function endLeaked(run: Run, keep: readonly number[]): Leaked[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const ended: Leaked[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid || keep.includes(pid) || keep.includes(parentOf(pid) ?? -1)) continue;
    if (!isRuns(pid, run)) continue;
    const command = (read(`/proc/${pid}/cmdline`) ?? "").split("\0").join(" ").trim();
    try {
      process.kill(pid, "SIGKILL");
      ended.push({ pid, command });
    } catch {
      // Gone already, or not ours to signal: nothing to end.
    }
  }
  return ended;
}

/**
 * Vitest's global set-up: mark the run and give it its folder (TMPDIR, so every test's
 * temporary folders are in it); at its end, end and name what the tests left running.
 */
export default function markRun() {
  const mark = `${RUN_MARK}=${randomUUID()}`;
  const dir = mkdtempSync(path.join(tmpdir(), "mt-"));
  process.env[RUN_MARK] = mark.slice(RUN_MARK.length + 1);
  process.env.TMPDIR = dir;
  return () => {
    const ended = endLeaked({ mark, dir }, [process.pid]);
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    if (ended.length === 0) return;
    const lines = ended.map(({ pid, command }) => `  ${pid} ${command.slice(0, 160)}`);
    process.stderr.write(
      `test run: ${ended.length} process(es) a test left running, ended by pid:\n${lines.join("\n")}\n`,
    );
  };
}
