// The steps of a replay (first-hour-user.ts): each bounded in time, timed, and named when it fails;
// and the commands they run, each in a process group of its own that is ended whole when its
// time is up or the replay is interrupted (a `pnpm release` is pnpm, turbo and their children).
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

export type Ran = { status: number; stdout: string; stderr: string };

const groups = new Set<number>();

/** Ends every command still running (the replay's interrupt handler calls it). */
export function endCommands() {
  for (const pid of groups) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  groups.clear();
}

/**
 * Runs a command to its end or for `seconds` at most (then its whole group is killed and this
 * throws, naming it). With `log`, both streams go to that file as well.
 */
export function bounded(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; seconds: number; log?: string },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const pid = child.pid;
    if (pid !== undefined) groups.add(pid);
    let stdout = "";
    let stderr = "";
    const keep = (into: "out" | "err") => (chunk: Buffer) => {
      const text = chunk.toString();
      if (into === "out") stdout += text;
      else stderr += text;
      if (options.log) appendFileSync(options.log, text);
    };
    child.stdout.on("data", keep("out"));
    child.stderr.on("data", keep("err"));
    const timer = setTimeout(() => {
      if (pid !== undefined) {
        groups.delete(pid);
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      reject(new Error(`${file} ${args.join(" ")} did not finish in ${options.seconds} s`));
    }, options.seconds * 1000);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (pid !== undefined) groups.delete(pid);
      resolve({ status: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}

/** The last lines of a command's output, for a failure's message. */
export const tail = (ran: Ran, lines = 15) =>
  `exit ${ran.status}: ${`${ran.stdout}${ran.stderr}`.trim().split("\n").slice(-lines).join("\n")}`;

export type Steps = {
  /**
   * Runs one step: at most `seconds` (past that it fails as timed out, and the replay ends the
   * commands it left), printed with its time and the detail it returns; false when it failed.
   */
  step: (name: string, seconds: number, action: () => Promise<string>) => Promise<boolean>;
  failures: string[];
};

/** A replay's steps, each printed with `say` as it ends. */
export function steps(say: (line: string) => void = console.log): Steps {
  const failures: string[] = [];
  const step = async (name: string, seconds: number, action: () => Promise<string>) => {
    const began = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`did not finish in ${seconds} s`)),
        seconds * 1000 + 1000,
      );
    });
    const took = () => `${((Date.now() - began) / 1000).toFixed(1)} s`;
    try {
      const detail = await Promise.race([action(), late]);
      say(`  ok  ${name} (${took()})${detail ? `: ${detail}` : ""}`);
      return true;
    } catch (error) {
      failures.push(`${name}: ${(error as Error).message}`);
      say(`  FAIL ${name} (${took()})`);
      endCommands();
      return false;
    } finally {
      clearTimeout(timer);
    }
  };
  return { step, failures };
}
