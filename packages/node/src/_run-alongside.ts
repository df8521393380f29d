// A program run alongside this process's own synchronous work (agents' read of /proc while tmux
// lists the panes): started at the call, its output to unlinked temporary files read once it has
// ended, so no pipe is made into a stream (what makes execFile cost ~4 ms more CPU than
// spawnSync) and the work overlaps the program's instead of waiting for it. Apart from _exec.ts
// so that only the bundles that run it carry it.
import { spawn } from "node:child_process";
import { closeSync, fstatSync, openSync, readSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { type RunOptions, type RunResult, runBlocking } from "./_exec.js";

/** A temporary file of this user's, already unlinked: its descriptor only (never a path to plant). */
function unlinkedFile(): number {
  const name = `${tmpdir()}/muster-run-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const fd = openSync(name, "wx+", 0o600);
  unlinkSync(name);
  return fd;
}

/** Everything written to `fd` (from its start), and the descriptor closed. */
function readWhole(fd: number): string {
  try {
    const buffer = Buffer.allocUnsafe(fstatSync(fd).size);
    let read = 0;
    while (read < buffer.length) {
      const got = readSync(fd, buffer, read, buffer.length - read, read);
      if (got === 0) break;
      read += got;
    }
    return buffer.toString("utf8", 0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * runProgram's answer (the same, case for case), the program started at the call with its output in unlinked files: the
 * caller's synchronous work runs while it does. Where no such file can be made, blocking.
 */
export function runAlongside(
  binary: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  let out: number | undefined;
  let err: number | undefined;
  try {
    out = unlinkedFile();
    err = unlinkedFile();
  } catch {
    for (const fd of [out, err]) if (fd !== undefined) closeSync(fd);
    return Promise.resolve(runBlocking(binary, args, options));
  }
  const files = { out, err };
  return new Promise<RunResult>((resolve) => {
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const child = spawn(binary, args, {
      stdio: ["ignore", files.out, files.err],
      env: options.env,
      cwd: options.cwd,
    });
    const settle = (answer: (stdout: string, stderr: string) => RunResult) => {
      clearTimeout(timer);
      child.removeAllListeners().on("error", () => undefined);
      resolve(answer(readWhole(files.out), readWhole(files.err)));
    };
    if (options.timeoutMs)
      timer = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, options.timeoutMs);
    child.once("error", (error: NodeJS.ErrnoException) =>
      settle((stdout, stderr) =>
        error.code === "ENOENT"
          ? { status: 127, stdout: "", stderr: `${binary} is not installed` }
          : { status: null, stdout, stderr },
      ),
    );
    child.once("exit", (code, signal) =>
      settle((stdout, stderr) => {
        if (timedOut) return { status: null, stdout, stderr, timedOutAfterMs: options.timeoutMs };
        return { status: signal ? null : code, stdout, stderr };
      }),
    );
  });
}
