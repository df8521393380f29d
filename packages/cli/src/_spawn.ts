// `muster spawn`: the CLI's door to spawning a teammate beside the caller. The caller is the agent
// this command belongs to and its seat is proven by ancestry; the spawn itself (pane, launch,
// waiting, the task's mail) is the shared wiring's spawnAgent. This file reads the task, finds the
// caller, and renders the answer.
import { readFileSync } from "node:fs";
import path from "node:path";
import { callerId, printable, withSuggestion } from "@muster/core";
import { LAUNCH_ENGINES } from "@muster/reconciler";
import {
  findMyAgent,
  findMySeat,
  notJoinedLine,
  type Spawned,
  type SpawnProgress,
  spawnAgent,
  spawnedLine,
  spawnSeat,
  troubleLine,
} from "@muster/wiring";
import { type Context, Refusal } from "./_context.js";
import { engineReady } from "./_spawn-ready.js";

export type SpawnOptions = {
  engine: string;
  label?: string | undefined;
  task?: string | undefined;
  taskFile?: string | undefined;
  window: boolean;
  cwd?: string | undefined;
  /** Start it in a new git worktree beside the repository, on this branch (or muster/<label>). */
  worktree?: { branch?: string | undefined } | undefined;
  timeoutMs: number;
  extra: string[];
  command?: string[] | undefined;
  /** Its mail does not wake it (a spawned member wakes for its mail by default). */
  quiet?: boolean | undefined;
  /** How many to start, one after another (each under a generated label). */
  count?: number | undefined;
};

function readTask(context: Context, options: SpawnOptions): string | undefined {
  if (options.taskFile === undefined) return options.task;
  try {
    return readFileSync(path.resolve(context.io.cwd, options.taskFile), "utf8").replace(/\n$/, "");
  } catch (error) {
    throw new Refusal(
      "bad-task-file",
      `cannot read ${options.taskFile}: ${(error as Error).message}`,
    );
  }
}

/** The caller's seat, proven by ancestry (or, from a plain terminal, a new window's), and its id. */
export async function findCaller(context: Context, window: boolean) {
  const processes = await context.processes();
  const found = findMyAgent(processes, process.ppid);
  const caller = found.ok ? found : undefined;
  const seated = await findMySeat({
    pid: caller?.pid ?? process.ppid,
    processes,
    env: context.io.env,
    target: context.target,
    defaultServer: true,
    run: context.run,
  });
  const seat = await spawnSeat({
    seat: seated,
    inTmux: context.here !== undefined,
    named: context.named,
    window,
    target: context.target,
    run: context.run,
  });
  return {
    seat,
    id: caller ? callerId(caller) : `spawn-${process.pid}`,
    pid: caller?.pid,
  };
}

export async function spawnCommand(context: Context, options: SpawnOptions) {
  const task = readTask(context, options);
  const [roster, team, caller] = await Promise.all([
    context.roster(),
    context.team(),
    findCaller(context, options.window),
  ]);
  const count = options.count ?? 1;
  const documents: object[] = [];
  for (let index = 0; index < count; index += 1) {
    const { document, line } = await spawnOne(context, options, { task, roster, team, caller });
    documents.push(document);
    if (!context.json) context.out(printable(line));
  }
  if (!context.json) return;
  if (count === 1) return context.emit(documents[0]!);
  context.emit({ spawned: documents });
}

type SpawnParts = {
  task: string | undefined;
  roster: Awaited<ReturnType<Context["roster"]>>;
  team: Awaited<ReturnType<Context["team"]>>;
  caller: Awaited<ReturnType<typeof findCaller>>;
};

async function spawnOne(context: Context, options: SpawnOptions, parts: SpawnParts) {
  const { task, roster, team, caller } = parts;
  const spawned = await spawnAgent(
    {
      engine: options.engine,
      label: options.label,
      task,
      window: options.window,
      cwd: path.resolve(context.io.cwd, options.cwd ?? "."),
      worktree: options.worktree,
      timeoutMs: options.timeoutMs,
      extra: options.extra,
      command: options.command,
      quiet: options.quiet,
    },
    caller,
    {
      roster,
      teamDir: team.dir,
      run: context.run,
      env: context.io.env,
      ready: (launch, request) => engineReady(context, launch, request),
      progress: context.json || !context.io.stderr.isTTY ? undefined : showProgress(context),
    },
  );
  if (!spawned.ok)
    throw new Refusal(
      spawned.reason,
      spawned.reason === "unknown-engine"
        ? withSuggestion(spawned, options.engine, LAUNCH_ENGINES)
        : spawned,
    );
  for (const warning of spawned.warnings) context.warn(warning);
  return render(spawned, options.timeoutMs);
}

/** Progress on a terminal: each step of the wait, and every few seconds that it still waits. */
function showProgress(context: Context) {
  return (step: SpawnProgress) => {
    const waited = `${Math.round(step.waitedMs / 1000)} s of ${step.timeoutMs / 1000}`;
    const line =
      step.state === "joined"
        ? undefined
        : step.state === "opened"
          ? step.waitedMs < 1000
            ? `pane ${step.pane} opened; waiting for ${step.engine} to start…`
            : `still waiting for ${step.engine} to start in pane ${step.pane} (${waited})…`
          : step.waitedMs < 1000 || step.pid === undefined
            ? `${step.engine} started (pid ${step.pid}); waiting for it to join as ${step.label}…`
            : `still waiting for ${step.label} to join (${waited}); look at pane ${step.pane} if it asks you something`;
    if (line) context.io.stderr.write(`muster: ${printable(line)}\n`);
  };
}

/**
 * The answer: one JSON document, or one line of the steps reached. A wait the time limit ended
 * before the agent joined is a failure (exit status 1) that still says the state reached.
 */
function render(spawned: Spawned, timeoutMs: number) {
  const { record, state } = spawned;
  const document = {
    label: record.label,
    engine: record.engine,
    pane: record.pane,
    pid: spawned.pid,
    server: record.server,
    session: spawned.session,
    cwd: record.cwd,
    state,
    task: spawned.task,
    mail: spawned.mail,
    // Milliseconds from the command's start: pane opened, engine found, on the roster, done.
    timings: spawned.timings,
    ...(spawned.seen ? { seen: spawned.seen } : {}),
    ...(spawned.trouble ? { trouble: troubleJson(spawned) } : {}),
  };
  // The engine said it cannot work, or died at start: a failure, whatever state it reached.
  if (spawned.trouble)
    throw new Refusal(
      spawned.trouble.kind === "said" ? "engine-cannot-work" : "engine-exited",
      troubleLine(record, spawned.trouble),
      document,
    );
  if (state !== "joined") {
    const seen = spawned.seen ?? { pane: "running" as const };
    const what = notJoinedLine(record, state, spawned.pid, seen, timeoutMs);
    const look =
      seen.pane === "gone" ? "" : `look at pane ${record.pane} (in ${spawned.sessionName}), or `;
    throw new Refusal(
      "time-limit",
      `${what}; ${look}end it with muster stop ${record.label}${state === "started" ? "; muster doctor checks its set-up" : ""}`,
      document,
    );
  }
  return { document, line: spawnedLine(spawned) };
}

/** The trouble as --json says it: what happened, the engine's own words, and the fix. */
function troubleJson({ trouble }: Spawned) {
  if (!trouble || trouble.kind === "gone") return { pane: "gone" };
  const said = trouble.said && {
    kind: trouble.said.kind,
    words: trouble.said.words,
    fix: trouble.said.fix,
  };
  return trouble.kind === "said"
    ? { pane: "running", ...said }
    : {
        pane: "exited",
        ...(trouble.status === undefined ? {} : { status: trouble.status }),
        ...(trouble.signal === undefined ? {} : { signal: trouble.signal }),
        lastWords: trouble.lastWords,
        ...said,
      };
}
