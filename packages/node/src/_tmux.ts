// The tmux runner the leaves take: a timeout, and a child killed by a signal (or by the timeout)
// answering status null, which @muster/tmux treats as no answer at all.
import { type RunResult, runProgram } from "./_exec.js";
import { runAlongside } from "./_run-alongside.js";

export type { RunResult };

export type TmuxRunnerOptions = {
  /** Give up (and answer null) after this long. Default 5 s. */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** The tmux executable. Default `tmux` from PATH. */
  binary?: string;
  /** Block until tmux answers (spawnSync): for a short-lived command with nothing else to do. */
  blocking?: boolean;
};

export function createTmuxRunner(options: TmuxRunnerOptions = {}) {
  const { timeoutMs = 5000, env, binary = "tmux", blocking } = options;
  return (args: string[]): Promise<RunResult> =>
    runProgram(binary, args, { timeoutMs, env, blocking });
}

/**
 * A runner that starts tmux at its call, its output to unlinked files (runAlongside): for a
 * command with its own synchronous work to do while tmux answers, which then overlaps tmux's.
 */
export function createTmuxRunnerAlongside(options: Omit<TmuxRunnerOptions, "blocking"> = {}) {
  const { timeoutMs = 5000, env, binary = "tmux" } = options;
  return (args: string[]): Promise<RunResult> => runAlongside(binary, args, { timeoutMs, env });
}
