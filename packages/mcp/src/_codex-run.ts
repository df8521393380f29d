// Running Codex for a member: which command line is its own, and one bounded `codex …` run
// (a queue that never answers must not hold the waker's sweeps, its claims or its slot).
import { spawn } from "node:child_process";
import { processRows } from "@muster/wiring";

/** What one `codex …` run came to: its exit status, and its first line of complaint. */
export type CodexRun = { status: number | null; error?: string | undefined };

/** Runs `codex <args>` under `env`. */
export type CodexRunner = (
  argv: readonly string[],
  args: string[],
  env: NodeJS.ProcessEnv,
) => Promise<CodexRun>;

/** How to run Codex for a member: MUSTER_CODEX_BIN, else the member's own entrypoint, else PATH. */
export function codexFor(env: NodeJS.ProcessEnv) {
  return async (member: { pid: number }): Promise<string[]> => {
    if (env.MUSTER_CODEX_BIN) return [env.MUSTER_CODEX_BIN];
    const rows = await processRows();
    const row = rows.ok
      ? rows.processes.find((candidate) => candidate.pid === member.pid)
      : undefined;
    const script =
      row?.argv.findIndex((arg) => /\/@openai\/codex\/bin\/codex(\.js)?$/.test(arg)) ?? -1;
    if (row && script >= 0 && row.argv[0]) return [row.argv[0], row.argv[script]!];
    if (row?.argv[0] && /(^|\/)codex$/.test(row.argv[0]) && row.argv[0].startsWith("/"))
      return [row.argv[0]];
    return ["codex"];
  };
}

/** A `codex …` run that has not ended by then is killed, and counts as failed. */
const RUN_MS = 20_000;

export const runCodex: CodexRunner = (argv, args, env) =>
  new Promise((resolve) => {
    const [command, ...rest] = argv;
    const child = spawn(command ?? "codex", [...rest, ...args], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString();
    });
    const words = () =>
      stderr
        .split("\n")
        .find((line) => line.trim() !== "")
        ?.trim();
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve({ status: null, error: `codex ${args[0] ?? ""} did not end in ${RUN_MS / 1000} s` });
    }, RUN_MS);
    timer.unref();
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ status: null, error: error.message });
    });
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, error: words() });
    });
  });
