// Who is asking: the agent, or the interactive shell, a command runs for. A command started by a
// package manager or a script (`pnpm muster join`, `npx muster`, `npm exec`, `sh -c "…"`) has
// short-lived wrappers for parents; the member is the process above them, which stays.
import { baseName, type EngineRule, matchEngine } from "./_engines.js";

export type CallerRow = {
  pid: number;
  ppid: number;
  start: string;
  name: string;
  argv: readonly string[];
};

export type CallerResult =
  | {
      ok: true;
      pid: number;
      start: string;
      /** The engine's name, or the shell's (`bash`, `zsh`, …). */
      agent: string;
      /** The engine when the caller is a recognised agent; undefined for a shell. */
      engine: string | undefined;
      /** The wrappers passed through on the way up, nearest first (`sh -c`, `pnpm`, …). */
      via: string[];
    }
  | { ok: false; reason: "no-caller"; error: string };

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "tcsh", "csh"]);
const RUNTIMES = new Set(["node", "nodejs", "bun", "deno"]);
/** Programs that run another and end with it: package managers, runners, and exec helpers. */
const WRAPPERS = new Set([
  "pnpm",
  "pnpx",
  "pn",
  "pnx",
  "npm",
  "npm-cli",
  "npx",
  "npx-cli",
  "yarn",
  "corepack",
  "bunx",
  "turbo",
  "env",
  "nice",
  "nohup",
  "timeout",
  "time",
  "xargs",
  "setsid",
  "stdbuf",
]);
/** Processes that host sessions rather than run for a person: above them there is no caller. */
const HOSTS = new Set(["tmux", "screen", "sshd", "systemd", "init", "cron", "crond", "launchd"]);

const programName = (word: string) =>
  baseName(word)
    .replace(/^-/, "") // a login shell's argv[0]: `-bash`
    .replace(/\.(?:c|m)?js$|\.exe$/u, "")
    .replace(/:.*$/, ""); // `tmux: server`

/** What a process is, as far as the walk cares. */
function kind(row: CallerRow): { role: "wrapper" | "shell" | "host" | "program"; name: string } {
  // A process title set by the program (`npm exec`) replaces argv with one string of words.
  const first = row.argv.length === 1 ? row.argv[0]!.split(" ")[0] : row.argv[0];
  let name = programName(first || row.name);
  // A runtime running a package manager's script (`node …/npm-cli.js exec`) is that script.
  if (RUNTIMES.has(name)) {
    const script = row.argv.slice(1).find((arg) => !arg.startsWith("-"));
    if (script && WRAPPERS.has(programName(script))) name = programName(script);
    else if (name === "bun" && row.argv[1] === "x") name = "bunx";
  }
  if (WRAPPERS.has(name)) return { role: "wrapper", name };
  if (HOSTS.has(name) || HOSTS.has(programName(row.name))) return { role: "host", name };
  if (SHELLS.has(name)) {
    // `sh -c "…"` and `sh script.sh` run something and end with it; a bare shell is a person's.
    const rest = row.argv.slice(1);
    const runsSomething =
      rest.some((arg) => arg === "--command" || /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg)) ||
      rest.some((arg) => !arg.startsWith("-") && !arg.startsWith("+"));
    return { role: runsSomething ? "wrapper" : "shell", name };
  }
  return { role: "program", name };
}

const describe = (row: CallerRow, name: string) => `${name} (pid ${row.pid})`;

/**
 * The caller of a command whose parent is `from`: the nearest recognised agent above it; with
 * none, the nearest process above it that is not a wrapper — an interactive shell, or a program
 * that ran the command itself. Refused when only wrappers lead to a session host (tmux, sshd,
 * cron, init) or out of the table: nothing that stays would own the membership.
 */
export function findCaller(
  rows: readonly CallerRow[],
  from: number,
  rules: readonly EngineRule[],
): CallerResult {
  const byPid = new Map(rows.map((row) => [row.pid, row]));
  const chain: CallerRow[] = [];
  const seen = new Set<number>();
  for (let row = byPid.get(from); row && !seen.has(row.pid); row = byPid.get(row.ppid)) {
    seen.add(row.pid);
    chain.push(row);
    if (row.pid <= 1) break;
  }
  if (chain.length === 0)
    return {
      ok: false,
      reason: "no-caller",
      error: `process ${from}, this command's parent, is not in the process table; pass --id`,
    };
  for (const row of chain) {
    const engine = row.pid > 1 ? matchEngine(row, rules) : undefined;
    if (engine)
      return {
        ok: true,
        pid: row.pid,
        start: row.start,
        agent: engine,
        engine,
        via: viaNames(chain, row),
      };
  }
  for (const row of chain) {
    const { role, name } = kind(row);
    if (role === "wrapper") continue;
    if (role === "host" || row.pid <= 1) {
      const passed = viaNames(chain, row);
      return {
        ok: false,
        reason: "no-caller",
        error: `no agent or interactive shell runs this command: above ${passed.join(" < ") || "it"} is ${describe(row, name)}; run it from an agent or a shell, or pass --id`,
      };
    }
    return {
      ok: true,
      pid: row.pid,
      start: row.start,
      agent: name,
      engine: undefined,
      via: viaNames(chain, row),
    };
  }
  const last = chain.at(-1)!;
  return {
    ok: false,
    reason: "no-caller",
    error: `no agent or interactive shell runs this command: only ${viaNames(chain, undefined).join(" < ")} above it, and ${describe(last, kind(last).name)}'s parent is gone; pass --id`,
  };
}

/** The wrappers below `stop` in the chain, by name. */
function viaNames(chain: readonly CallerRow[], stop: CallerRow | undefined): string[] {
  const names: string[] = [];
  for (const row of chain) {
    if (row === stop) break;
    const { name } = kind(row);
    names.push(SHELLS.has(name) ? `${name} -c` : name);
  }
  return names;
}
