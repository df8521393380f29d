// The test run's janitor (the root vitest.config.ts's global set-up): every process a test starts
// inherits this run's mark in its environment, and when the run ends any marked process still
// alive that is not one of Vitest's own workers is ended by pid and named on stderr. Vitest waits
// for every process that holds a worker's output: one `muster mcp` a test left running held CI
// for an hour after its last test passed. Marks are per run, so a run beside this one (another
// checkout's) is never touched. Linux only (/proc); elsewhere it does nothing.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

export const RUN_MARK = "MUSTER_TEST_RUN";

export type Leaked = { pid: number; command: string };

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

/**
 * End every process whose environment holds `mark` (`NAME=value`), except `keep` and their
 * children (the runner and its workers, still closing); what was ended.
 */
export function endMarked(mark: string, keep: readonly number[]): Leaked[] {
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
    if (keep.includes(pid) || keep.includes(parentOf(pid) ?? -1)) continue;
    if (!read(`/proc/${pid}/environ`)?.split("\0").includes(mark)) continue;
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

/** Vitest's global set-up: mark the run; at its end, end and name what the tests left running. */
export default function markRun() {
  const mark = `${RUN_MARK}=${randomUUID()}`;
  process.env[RUN_MARK] = mark.slice(RUN_MARK.length + 1);
  return () => {
    const ended = endMarked(mark, [process.pid]);
    if (ended.length === 0) return;
    const lines = ended.map(({ pid, command }) => `  ${pid} ${command.slice(0, 160)}`);
    process.stderr.write(
      `test run: ${ended.length} process(es) a test left running, ended by pid:\n${lines.join("\n")}\n`,
    );
  };
}
