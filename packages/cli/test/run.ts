// The built `muster` binary as a child process, for the boundary tests: a scratch HOME, no TMUX,
// and (unless the arguments pick a server) a tmux server that does not exist.
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { tmuxEnv } from "@muster/test-support";
import { expect } from "vitest";

export const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
export const NOWHERE = ["-L", "muster-test-000000000000"];
export const ESC = "\u001b";
export const BEL = "\u0007";
/** What an attacker writes: a clipboard write, a title, a clear screen, an 8-bit CSI, an RLO. */
export const HOSTILE = `${ESC}]52;c;cm0gLXJmIH4=${BEL}${ESC}]0;pwned${BEL}${ESC}[2J\u009b31m\u202Egnp.exe`;
/** Any byte a terminal acts on (tab and newline aside, which bodies and tables legitimately hold). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these bytes
export const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export type Run = { status: number | null; stdout: string; stderr: string };
type Options = {
  env?: Record<string, string | undefined>;
  /** Where the command runs (default: the scratch folder). */
  cwd?: string;
  input?: string;
  /** Where stdout goes: a pipe (read back), or a file descriptor such as /dev/full's. */
  stdout?: number;
  /**
   * Without root's capabilities, so file modes bind muster as they bind any user (a mode-000 file
   * is unreadable to it). Uses `setpriv` when the tests run as root.
   */
  unprivileged?: boolean;
  /** Kill it (status null) if it has not finished by then: for a test that it does not hang. */
  timeoutMs?: number;
};

/** The command line that starts the CLI, stripped of root's capabilities where asked and needed. */
function command(unprivileged: boolean | undefined): [string, string[]] {
  if (!unprivileged || process.getuid?.() !== 0) return [process.execPath, [MUSTER]];
  return ["setpriv", ["--bounding-set=-all", "--inh-caps=-all", process.execPath, MUSTER]];
}

/** A scratch folder, a fresh team folder in it per call of `newTeam`, and `muster(args)`. */
export function musterKit(prefix: string) {
  const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  let teams = 0;
  const newTeam = () => {
    teams += 1;
    return path.join(scratch, `team-${teams}`);
  };
  const muster = (args: string[], options: Options = {}): Promise<Run> => {
    const chooses = args.includes("-L") || args.includes("-S");
    return new Promise((resolve) => {
      const [file, start] = command(options.unprivileged);
      const child = spawn(file, [...start, ...args, ...(chooses ? [] : NOWHERE)], {
        cwd: options.cwd ?? scratch,
        env: tmuxEnv({ HOME: scratch, ...options.env }),
        stdio: ["pipe", options.stdout ?? "pipe", "pipe"],
        ...(options.timeoutMs
          ? { timeout: options.timeoutMs, killSignal: "SIGKILL" as const }
          : {}),
      });
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (chunk) => {
        stdout += chunk;
      });
      child.stderr?.on("data", (chunk) => {
        stderr += chunk;
      });
      child.stdin?.end(options.input ?? "");
      child.once("close", (status) => resolve({ status, stdout, stderr }));
    });
  };
  return { scratch, newTeam, muster };
}

/** Neither stream carries a raw control byte. */
export function expectClean(run: Run) {
  expect(run.stdout).not.toMatch(RAW);
  expect(run.stderr).not.toMatch(RAW);
}
