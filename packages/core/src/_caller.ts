// Who is asking: the agent a command belongs to. From the command's parent, walk up to the nearest
// process an engine rule recognises (Codex, Claude Code, …). With none, the nearest process that is
// not a wrapper: a command started by a package manager or a script (`pnpm muster join`, `npx`,
// `npm exec`, `sh -c "…"`) has short-lived parents, and the member is what stays above them — an
// interactive shell, or a program that ran the command itself. Under git (a hook, a hook manager,
// an alias, `rebase --exec`) the walk resumes above the outermost git: the member who commits is
// the one who ran git, the same as from the shell. Its pid and start time make a stable member id,
// so every call from one agent is one member.

/** One process, as much as the caller rule reads (the process rows of @muster/node fit). */
export type CallerProcess = {
  pid: number;
  ppid: number;
  start: string;
  name: string;
  argv: readonly string[];
};

/** The agent a command belongs to: its process, and the engine recognised (none for a shell). */
export type Caller = { pid: number; start: string; agent: string; engine: string | undefined };

export type CallerResult =
  | (Caller & {
      ok: true;
      /** The wrappers passed through on the way up, nearest first (`sh -c`, `pnpm`, …). */
      via: string[];
    })
  | { ok: false; reason: "no-caller"; error: string; fix: string }
  /** Run in an engine's sandbox, a pid namespace of its own: the engine's process is out of sight. */
  | { ok: false; reason: "sandboxed"; engine: string; error: string; fix: string };

/** What to do when no caller is found: defined here, beside the walk; composers join it. */
const NO_CALLER_FIX = "run it from an agent or a shell, or name the member by its id";

const noCaller = (error: string) => ({
  ok: false as const,
  reason: "no-caller" as const,
  error,
  fix: NO_CALLER_FIX,
});

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "tcsh", "csh"]);
const RUNTIMES = new Set(["node", "nodejs", "bun", "deno"]);
/** Programs that run another and end with it: package managers, runners, and exec helpers. */
const WRAPPERS = new Set([
  ...["pnpm", "pnpx", "pn", "pnx", "npm", "npm-cli", "npx", "npx-cli", "yarn", "corepack", "bunx"],
  ...["turbo", "env", "nice", "nohup", "timeout", "time", "xargs", "setsid", "stdbuf"],
  ...["make", "gmake", "just"],
  // Git's terminal front ends run git for the person who started them, never as a member.
  ...["lazygit", "gitui", "tig"],
]);
/**
 * Sandboxes that run an engine's shell-tool commands as pid 1 of a pid namespace of their own, so
 * the walk up never reaches the engine (Codex 0.171.0 on Linux, measured: `codex-linux-sandbox`).
 */
const SANDBOXES: Readonly<Record<string, string>> = { "codex-linux-sandbox": "codex" };

/** Processes that host sessions rather than run for a person: above them there is no caller. */
const HOSTS = new Set(["tmux", "screen", "sshd", "systemd", "init", "cron", "crond", "launchd"]);

const programName = (word: string) =>
  word
    .slice(word.lastIndexOf("/") + 1)
    .replace(/^-/, "") // a login shell's argv[0]: `-bash`
    .replace(/\.(?:c|m)?js$|\.exe$/u, "")
    .replace(/:.*$/, ""); // `tmux: server`

type Role = "wrapper" | "shell" | "host" | "program";

/** What a process is, as far as the walk cares. */
function roleOf(row: CallerProcess): { role: Role; name: string } {
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
    // A `-c` script of several commands (`muster join x && exec sleep 600`) outlives muster: it is
    // the program that ran it, not a wrapper.
    const rest = row.argv.slice(1);
    const inline = rest.findIndex(
      (arg) => arg === "--command" || /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg),
    );
    if (inline >= 0 && /[;&|\n]/.test(rest[inline + 1] ?? "")) return { role: "program", name };
    const runsSomething =
      rest.some((arg) => arg === "--command" || /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg)) ||
      rest.some((arg) => !arg.startsWith("-") && !arg.startsWith("+"));
    return { role: runsSomething ? "wrapper" : "shell", name };
  }
  return { role: "program", name };
}

/**
 * Where the walk for a non-engine caller starts: above the outermost `git` below any session host.
 * Git runs hooks, hook managers (husky's scripts, lefthook, pre-commit), aliases and `rebase
 * --exec` for whoever ran it; none of that is a caller, or a commit would be another member than
 * the shell that typed it.
 */
function aboveGit(chain: readonly CallerProcess[]): number {
  let start = 0;
  for (const [index, row] of chain.entries()) {
    const { role, name } = roleOf(row);
    if (role === "host" || row.pid <= 1) break;
    if (name === "git") start = index + 1;
  }
  return start;
}

/** The wrappers below `stop` in the chain, by name. */
function viaNames(chain: readonly CallerProcess[], stop: CallerProcess | undefined): string[] {
  const names: string[] = [];
  for (const row of chain) {
    if (row === stop) break;
    const { role, name } = roleOf(row);
    names.push(role === "wrapper" && SHELLS.has(name) ? `${name} -c` : name);
  }
  return names;
}

/**
 * The caller of a command whose parent is `from`: the nearest recognised agent above it; with
 * none, `sandboxed` in an engine's sandbox, else the nearest process above it (and above the
 * outermost git) that is not a wrapper. Refused when only wrappers lead to a session host (tmux,
 * sshd, cron, init) or out of the table: nothing that stays would own the membership. A parent
 * loop in the table ends the walk; pid 1 is never an agent.
 */
export function findCaller(
  processes: readonly CallerProcess[],
  from: number,
  recognise: (process: CallerProcess) => string | undefined,
): CallerResult {
  const byPid = new Map(processes.map((row) => [row.pid, row]));
  const chain: CallerProcess[] = [];
  const seen = new Set<number>();
  for (let row = byPid.get(from); row && !seen.has(row.pid); row = byPid.get(row.ppid)) {
    seen.add(row.pid);
    chain.push(row);
    if (row.pid <= 1) break;
  }
  if (chain.length === 0)
    return noCaller(`process ${from}, this command's parent, is not in the process table`);
  for (const row of chain) {
    const engine = row.pid > 1 ? recognise(row) : undefined;
    if (engine) {
      const via = viaNames(chain, row);
      return { ok: true, pid: row.pid, start: row.start, agent: engine, engine, via };
    }
  }
  // All in an engine's sandbox is that engine's (a shell tool's script of several commands, the
  // git it ran, a program): the sandbox is pid 1 there, and nothing under it is another member.
  const root = chain.at(-1)!;
  const rootName = roleOf(root).name;
  const sandbox =
    root.pid <= 1 && Object.hasOwn(SANDBOXES, rootName) ? SANDBOXES[rootName] : undefined;
  if (sandbox)
    return {
      ok: false,
      reason: "sandboxed",
      engine: sandbox,
      error: `this command runs in ${sandbox}'s sandbox, where muster cannot see ${sandbox} itself to seat it or prove it alive`,
      fix: `let ${sandbox} join through muster's team tools first (any team_ tool call joins its session); commands from its shell then act as that member`,
    };
  for (const row of chain.slice(aboveGit(chain))) {
    const { role, name } = roleOf(row);
    if (role === "wrapper") continue;
    const via = viaNames(chain, row);
    if (role === "host" || row.pid <= 1) {
      return noCaller(
        `no agent or interactive shell runs this command: above ${via.join(" < ") || "it"} is ${name} (pid ${row.pid})`,
      );
    }
    return { ok: true, pid: row.pid, start: row.start, agent: name, engine: undefined, via };
  }
  return noCaller(
    `no agent or interactive shell runs this command: only ${viaNames(chain, undefined).join(" < ")} above it, and the parent of ${rootName} (pid ${root.pid}) is gone`,
  );
}

/** The member id of a caller: engine (or `shell`), pid and start time. */
export const callerId = (caller: Caller): string =>
  `${caller.engine ?? "shell"}-${caller.pid}-${caller.start}`;

/**
 * The engines whose session, not their process, is the member, and the variable their shell tool
 * names it in: Codex's shell tool sets CODEX_THREAD_ID (its MCP server's member is `codex-<thread>`),
 * pi's bash tool PI_SESSION_ID (its extension's member is the session id). A command run there is
 * that session's: one agent, one member, whatever door it comes through.
 */
const SESSIONS: Readonly<Record<string, { variable: string; id: (session: string) => string }>> = {
  codex: { variable: "CODEX_THREAD_ID", id: (thread) => `codex-${thread}` },
  pi: { variable: "PI_SESSION_ID", id: (session) => session },
};

/**
 * The member a command run in an engine's sandbox acts as: the session its engine names to the
 * commands it runs (`codex-<thread>`), which its other doors joined. Like an explicit id, it is
 * no proof of a process: such a command may act as a member, never join one.
 */
export function sandboxedMemberId(
  result: CallerResult,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (result.ok || result.reason !== "sandboxed") return undefined;
  const session = SESSIONS[result.engine];
  const named = session ? env[session.variable] : undefined;
  return session && named !== undefined && isSessionId(named) ? session.id(named) : undefined;
}

/** A session id as the engines write them (UUIDs); anything else names no session. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9-]{7,63}$/;

/** Is this text a session id as the engines write them (a Codex thread, a Claude Code session)? */
export const isSessionId = (text: unknown): text is string =>
  typeof text === "string" && SESSION_ID.test(text);

/** The member id of a Codex thread (`codex-<thread>`); undefined for text that is not a thread id. */
export const codexMemberId = (thread: unknown): string | undefined =>
  isSessionId(thread) ? `codex-${thread}` : undefined;

/** The Codex thread a member id names; undefined for any other member. */
export const codexThreadOf = (memberId: string): string | undefined => {
  const thread = memberId.startsWith("codex-") ? memberId.slice("codex-".length) : undefined;
  return isSessionId(thread) ? thread : undefined;
};

/**
 * The member a caller is: its engine's session where that engine names one to the commands it
 * runs (the session decides which member; the process, found by ancestry, proves which engine it
 * is), else its process (`callerId`). A session variable of another engine than the caller's is
 * inherited, not its own, and counts for nothing.
 */
export function memberIdOf(
  caller: Caller,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const session = caller.engine ? SESSIONS[caller.engine] : undefined;
  const named = session ? env[session.variable] : undefined;
  if (session && named !== undefined && SESSION_ID.test(named)) return session.id(named);
  return callerId(caller);
}
