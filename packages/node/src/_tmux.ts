// The tmux runner the leaves take: execa, with a timeout, and a child killed by a signal (or by the
// timeout) answering status null, which @muster/tmux treats as no answer at all.
import { execa } from "execa";

export type RunResult = { status: number | null; stdout: string; stderr: string };

export type TmuxRunnerOptions = {
  /** Give up (and answer null) after this long. Default 5 s. */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** The tmux executable. Default `tmux` from PATH. */
  binary?: string;
};

export function createTmuxRunner(options: TmuxRunnerOptions = {}) {
  const { timeoutMs = 5000, env, binary = "tmux" } = options;
  return async (args: string[]): Promise<RunResult> => {
    const result = await execa(binary, args, {
      reject: false,
      timeout: timeoutMs,
      env,
      extendEnv: env === undefined,
      stripFinalNewline: false,
    });
    if (result.code === "ENOENT") {
      return { status: 127, stdout: "", stderr: `${binary} is not installed` };
    }
    const killed = result.signal !== undefined || result.timedOut || result.exitCode === undefined;
    return {
      status: killed ? null : (result.exitCode ?? null),
      stdout: String(result.stdout),
      stderr: String(result.stderr),
    };
  };
}
