// Running a program and reading its answer, with Node's own child_process. execa was the plan, but
// importing it costs ~100 ms here (`node -e` starts in ~30 ms), which the CLI cannot afford on
// every call; execFile does all this package needs. A short-lived command that runs one program and
// has nothing else to do meanwhile asks for `blocking`: spawnSync costs ~4 ms less CPU than
// execFile (no pipes made into streams, no event loop turns), a tenth of such a start. One with
// its own synchronous work to do while the program runs takes runAlongside (_run-alongside.ts).
import { execFile, spawnSync } from "node:child_process";

/** `status` null: killed; with `timedOutAfterMs`, killed because it did not finish in that long. */
export type RunResult = {
  status: number | null;
  stdout: string;
  stderr: string;
  timedOutAfterMs?: number | undefined;
};

/** Run `binary args`: status null when killed (by a signal or the timeout), 127 when missing. */
export function runProgram(
  binary: string,
  args: readonly string[],
  options: RunOptions & { blocking?: boolean } = {},
): Promise<RunResult> {
  if (options.blocking) return Promise.resolve(runBlocking(binary, args, options));
  return new Promise((resolve) => {
    execFile(
      binary,
      args,
      {
        encoding: "utf8",
        timeout: options.timeoutMs ?? 0,
        killSignal: "SIGKILL",
        maxBuffer: 256 * 1024 * 1024,
        env: options.env,
        cwd: options.cwd,
      },
      (error, stdout, stderr) => {
        if (!error) return resolve({ status: 0, stdout, stderr });
        const failure = error as NodeJS.ErrnoException & {
          killed?: boolean;
          signal?: string | null;
          code?: number | string;
        };
        if (failure.code === "ENOENT")
          return resolve({ status: 127, stdout: "", stderr: `${binary} is not installed` });
        // execFile sets `killed` only when it killed the child itself: the timeout.
        if (failure.killed && options.timeoutMs)
          return resolve({ status: null, stdout, stderr, timedOutAfterMs: options.timeoutMs });
        if (failure.killed || failure.signal) return resolve({ status: null, stdout, stderr });
        resolve({ status: typeof failure.code === "number" ? failure.code : 1, stdout, stderr });
      },
    );
  });
}

export type RunOptions = { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string };

/** runProgram's answer, the process blocked until the program ends (spawnSync). */
export function runBlocking(
  binary: string,
  args: readonly string[],
  options: RunOptions,
): RunResult {
  const ran = spawnSync(binary, args, {
    encoding: "utf8",
    timeout: options.timeoutMs ?? 0,
    killSignal: "SIGKILL",
    maxBuffer: 256 * 1024 * 1024,
    env: options.env,
    cwd: options.cwd,
  });
  const stdout = ran.stdout ?? "";
  const stderr = ran.stderr ?? "";
  const failure = ran.error as NodeJS.ErrnoException | undefined;
  if (failure?.code === "ENOENT")
    return { status: 127, stdout: "", stderr: `${binary} is not installed` };
  if (failure?.code === "ETIMEDOUT" && options.timeoutMs)
    return { status: null, stdout, stderr, timedOutAfterMs: options.timeoutMs };
  if (ran.signal || failure) return { status: null, stdout, stderr };
  return { status: ran.status, stdout, stderr };
}
