// The check a land runs on the rebased result, in the scratch worktree: `sh -c <command>`, its
// output streamed to the caller as it comes and kept whole in a log beside the scratch worktrees
// (`<common>/muster-land/<label>.log`), its tail handed back for the member's mail.
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";

export type CheckRun = { ok: boolean; code: number | string; tail: string; log: string };

const TAIL_LINES = 30;
const TAIL_BYTES = 64 * 1024;

/**
 * Run `command` in `cwd`; `onOutput` sees its output as it comes; the log keeps it all (written
 * through the descriptor `openLog` made, never opened again by name).
 */
export function runCheck(
  command: string,
  cwd: string,
  log: { path: string; descriptor: number },
  onOutput?: ((chunk: string) => void) | undefined,
): Promise<CheckRun> {
  return new Promise((resolve) => {
    const file = createWriteStream("", { fd: log.descriptor });
    let kept = "";
    const child = spawn("sh", ["-c", command], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, MUSTER_LAND: "1" },
    });
    const take = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      file.write(chunk);
      kept = (kept + text).slice(-TAIL_BYTES);
      onOutput?.(text);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    const finish = (code: number | string) =>
      file.end(() =>
        resolve({
          ok: code === 0,
          code,
          tail: kept.trimEnd().split("\n").slice(-TAIL_LINES).join("\n"),
          log: log.path,
        }),
      );
    child.on("error", (error) => finish(error.message));
    child.on("close", (code, signal) => finish(code ?? signal ?? "killed"));
  });
}
