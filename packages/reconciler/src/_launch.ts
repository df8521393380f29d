// How to launch each engine: data beside the discovery rules. A row says the program, how a task
// reaches the engine as its first prompt (where the engine takes one on its command line), and
// the signal that asks it to quit. Every task also reaches the new agent as its first mail (the
// composer's part), so an engine with no command-line prompt still gets it.
import type { FoundAgent } from "./_discover.js";
import type { ScanResult } from "./_tracked.js";

export type LaunchRule = {
  engine: string;
  /** The program and its fixed arguments. */
  command: readonly string[];
  /** The arguments that hand it `task` as its first prompt; absent: the task goes by mail only. */
  task?: ((task: string) => readonly string[] | undefined) | undefined;
  /** The signal that asks it to quit before its pane is closed. */
  quit: "SIGTERM" | "SIGINT" | "SIGHUP";
  /**
   * How its conversation is named and resumed: `fresh` starts one under an id muster chose (absent:
   * the engine names it, as Codex names its thread at the first turn), `resume` goes back into one.
   */
  session?:
    | {
        fresh?: ((id: string) => readonly string[]) | undefined;
        resume: (id: string) => readonly string[];
        /**
         * The first prompt of a resume, for an engine that joins the team only at a team tool's
         * call (Codex): without a turn it would sit off the team, its waiting mail unseen.
         */
        rejoin?: string | undefined;
      }
    | undefined;
  /** Why the caller's extra arguments would spoil this launch; undefined: they are fine. */
  refuseExtra?:
    | ((extra: readonly string[]) => { error: string; fix: string } | undefined)
    | undefined;
};

/**
 * The Codex 0.171.0 arguments that keep its app-server daemon, measured one by one on a real Codex
 * ("value": the next argument is its value). Others do not: `-c`, `--profile`, `--search`,
 * `--approve-for-me`, `--strict-config` and `--no-daemon` run Codex without it, and a `codex queue`
 * wake then waits for a 10 s poll. An argument not measured is refused too: a check that cannot
 * decide refuses.
 */
const CODEX_KEEPS_DAEMON: Readonly<Record<string, "value" | "flag">> = {
  "-m": "value",
  "--model": "value",
  "-s": "value",
  "--sandbox": "value",
  "-a": "value",
  "--ask-for-approval": "value",
  "-C": "value",
  "--cd": "value",
  "--add-dir": "value",
  "--no-alt-screen": "flag",
  "--dangerously-bypass-approvals-and-sandbox": "flag",
};

/** The first extra argument that may cost a spawned Codex its daemon, with the way round it. */
function refuseCodexExtra(extra: readonly string[]): { error: string; fix: string } | undefined {
  for (let index = 0; index < extra.length; index += 1) {
    const argument = extra[index]!;
    if (argument === "--") return undefined;
    if (!argument.startsWith("-")) continue;
    const [name, inline] = argument.split(/=(.*)/s, 2) as [string, string | undefined];
    const kind = Object.hasOwn(CODEX_KEEPS_DAEMON, name) ? CODEX_KEEPS_DAEMON[name] : undefined;
    if (kind === "value" || (kind === "flag" && inline === undefined)) {
      if (kind === "value" && inline === undefined) index += 1;
      continue;
    }
    return {
      error: `Codex's argument "${argument}" may run it without its app-server daemon, and team mail would then wake it only every 10 s (-c and the profile argument do, measured)`,
      fix: "set that in Codex's config.toml instead; of its arguments, only the model, sandbox, approval policy, working folder, extra folders and the alternate screen are known to keep the daemon",
    };
  }
  return undefined;
}

/** The built-in launch rules, one per engine. */
export const BUILTIN_LAUNCHES: readonly LaunchRule[] = [
  // pi reads `@name` as a file to attach: such a task goes by mail only.
  {
    engine: "pi",
    command: ["pi"],
    task: (task) => (task.startsWith("@") ? undefined : ["--", task]),
    quit: "SIGTERM",
    // --session-id opens the folder's session with that id, creating it the first time.
    session: { fresh: (id) => ["--session-id", id], resume: (id) => ["--session-id", id] },
  },
  // Plain `codex`: any `-c` or `--profile` runs Codex 0.171 without its app-server daemon, and a
  // `codex queue` wake then waits for a 10 s poll. The MCP start-up grace that makes a task's turn
  // wait for muster's tools is a key `muster install codex` writes in the user's config.toml.
  {
    engine: "codex",
    command: ["codex"],
    task: (task) => ["--", task],
    quit: "SIGTERM",
    // Its thread is named at the first turn (the member codex-<thread>); `codex resume <thread>`.
    session: {
      resume: (thread) => ["resume", thread],
      rejoin:
        "muster: you are back on the team after a restart. Call team_inbox now to rejoin and read the mail that waited for you.",
    },
    refuseExtra: refuseCodexExtra,
  },
  {
    engine: "claude",
    command: ["claude"],
    task: (task) => ["--", task],
    quit: "SIGTERM",
    session: { fresh: (id) => ["--session-id", id], resume: (id) => ["--resume", id] },
  },
  {
    engine: "gemini",
    command: ["gemini"],
    task: (task) => [`--prompt-interactive=${task}`],
    quit: "SIGTERM",
  },
  // OpenCode's TUI and aider take no first prompt that leaves them running: mail only.
  { engine: "opencode", command: ["opencode"], quit: "SIGTERM" },
  { engine: "aider", command: ["aider"], quit: "SIGTERM" },
];

export type Launch = {
  engine: string;
  /** The full command line: program, arguments, the caller's extra arguments, the task. */
  argv: string[];
  /** Whether the task is on the command line (it goes by mail in every case). */
  taskOnCommandLine: boolean;
  /** The engine session it starts in or resumes, where muster names it. */
  session?: { id: string; resume: boolean } | undefined;
  quit: LaunchRule["quit"];
};

export type LaunchResult =
  | { ok: true; launch: Launch }
  | {
      ok: false;
      reason: "unknown-engine" | "bad-command" | "loses-daemon" | "no-session";
      error: string;
      fix: string;
    };

/** The engines muster knows how to start, in the rows' order. */
export const LAUNCH_ENGINES: readonly string[] = BUILTIN_LAUNCHES.map((rule) => rule.engine);

export type LaunchOptions = {
  task?: string | undefined;
  /** Extra engine arguments, passed before the task. */
  extra?: readonly string[] | undefined;
  /** A user-configured command for an engine with no row (or to replace a row's). */
  command?: readonly string[] | undefined;
  /**
   * The engine session: a fresh one under `id` (where the engine lets muster name it), or `resume`
   * back into it (no task then: it had its task the first time). An id that is not a session id,
   * or an engine that cannot, is refused.
   */
  session?: { id: string; resume: boolean } | undefined;
};

/** An engine session id as muster writes one and the engines print theirs (UUIDs). */
const ENGINE_SESSION = /^[A-Za-z0-9][A-Za-z0-9-]{7,63}$/;

/** The command line that starts `engine`, or why there is none. */
export function launchCommand(
  engine: string,
  options: LaunchOptions = {},
  rules: readonly LaunchRule[] = BUILTIN_LAUNCHES,
): LaunchResult {
  const name = engine.toLowerCase();
  const rule = rules.find((candidate) => candidate.engine === name);
  if (options.command && (options.command.length === 0 || options.command[0] === ""))
    return {
      ok: false,
      reason: "bad-command",
      error: "the command to launch is empty",
      fix: "give the command line that starts the agent",
    };
  if (!rule && !options.command) {
    const known = rules.map((candidate) => candidate.engine).join(", ");
    return {
      ok: false,
      reason: "unknown-engine",
      error: `muster knows no launch command for "${engine}"`,
      fix: `use one of ${known}, or give the command line that starts it`,
    };
  }
  // The caller's own command line is the caller's; the row's is checked against the extras.
  const spoiled = options.command ? undefined : rule?.refuseExtra?.(options.extra ?? []);
  if (spoiled) return { ok: false, reason: "loses-daemon", ...spoiled };
  const session = options.session;
  const sessionArgs = session && !options.command ? sessionArguments(rule, session) : [];
  if (session && sessionArgs === undefined)
    return {
      ok: false,
      reason: "no-session",
      error: `muster cannot ${session.resume ? "resume" : "name"} a ${name} session ${JSON.stringify(session.id).slice(0, 80)}`,
      fix: "start it fresh",
    };
  const resumed = session?.resume === true && sessionArgs !== undefined && sessionArgs.length > 0;
  // A resume carries no task (it had it the first time), only the rejoin prompt where one is due.
  const asked = options.task === undefined || options.task === "" ? undefined : options.task;
  const task = resumed ? rule?.session?.rejoin : asked;
  const taskArgs = task !== undefined && !options.command ? rule?.task?.(task) : undefined;
  return {
    ok: true,
    launch: {
      engine: rule?.engine ?? name,
      argv: [
        ...(options.command ?? rule?.command ?? []),
        ...(sessionArgs ?? []),
        ...(options.extra ?? []),
        ...(taskArgs ?? []),
      ],
      taskOnCommandLine: taskArgs !== undefined,
      quit: rule?.quit ?? "SIGTERM",
      ...(session && sessionArgs && sessionArgs.length > 0 ? { session } : {}),
    },
  };
}

/** The arguments that start or resume `session`; undefined: the engine cannot (or a bad id). */
function sessionArguments(
  rule: LaunchRule | undefined,
  session: { id: string; resume: boolean },
): readonly string[] | undefined {
  if (!ENGINE_SESSION.test(session.id)) return undefined;
  const make = session.resume ? rule?.session?.resume : rule?.session?.fresh;
  return make?.(session.id);
}

/** Whether muster names `engine`'s session at its start (else the engine names it, or none). */
export const namesSession = (engine: string, rules: readonly LaunchRule[] = BUILTIN_LAUNCHES) =>
  rules.find((rule) => rule.engine === engine.toLowerCase())?.session?.fresh !== undefined;

/** Whether muster can bring `engine` back into a session. */
export const resumesSession = (engine: string, rules: readonly LaunchRule[] = BUILTIN_LAUNCHES) =>
  rules.find((rule) => rule.engine === engine.toLowerCase())?.session?.resume !== undefined;

/** The signal that asks `engine` to quit: its row's, else SIGTERM (an orderly exit for most). */
export function quitSignal(
  engine: string,
  rules: readonly LaunchRule[] = BUILTIN_LAUNCHES,
): LaunchRule["quit"] {
  return rules.find((rule) => rule.engine === engine.toLowerCase())?.quit ?? "SIGTERM";
}

export type SpawnedResult =
  | { ok: true; agent: FoundAgent }
  | { ok: false; reason: "no-evidence" | "not-yet" | "other-engine" | "ambiguous"; error: string };

/**
 * The agent muster just launched, as one scan sees it: the engine's process in the new pane (the
 * pane's own process or below it), ready to be adopted as verified. Anything else is not it.
 */
export function findSpawned(
  result: ScanResult,
  spawned: { seatKey: string; engine: string },
): SpawnedResult {
  if (!result.ok) return { ok: false, reason: "no-evidence", error: result.error };
  if (result.ambiguous.some((entry) => entry.seatKey === spawned.seatKey))
    return { ok: false, reason: "ambiguous", error: "two agents run side by side in the new pane" };
  const agent = result.agents.find((candidate) => candidate.seatKey === spawned.seatKey);
  if (!agent) return { ok: false, reason: "not-yet", error: `${spawned.engine} has not started` };
  if (agent.engine !== spawned.engine)
    return {
      ok: false,
      reason: "other-engine",
      error: `the new pane runs ${agent.engine}, not ${spawned.engine}`,
    };
  return { ok: true, agent };
}
