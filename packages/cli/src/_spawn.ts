// `muster spawn`: the CLI's door to spawning a teammate beside the caller. The caller is the agent
// this command belongs to and its seat is proven by ancestry; the spawn itself (pane, launch,
// waiting, the task's mail) is the shared wiring's spawnAgent. This file reads the task, finds the
// caller, and renders the answer.
import { readFileSync } from "node:fs";
import path from "node:path";
import { callerId, errorLine, printable } from "@muster/core";
import { findMyAgent, findMySeat, type Spawned, spawnAgent, spawnedLine } from "@muster/wiring";
import { type Context, Refusal } from "./_context.js";

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

/** The caller's seat, proven by ancestry, and its member id. */
async function findCaller(context: Context) {
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
  return {
    seat: seated,
    id: caller ? callerId(caller) : `spawn-${process.pid}`,
    pid: caller?.pid,
  };
}

export async function spawnCommand(context: Context, options: SpawnOptions) {
  const task = readTask(context, options);
  const [roster, team, caller] = await Promise.all([
    context.roster(),
    context.team(),
    findCaller(context),
  ]);
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
    },
    caller,
    { roster, teamDir: team.dir, run: context.run },
  );
  if (!spawned.ok) throw new Refusal(spawned.reason, errorLine(spawned));
  for (const warning of spawned.warnings) context.warn(warning);
  render(context, spawned, options.timeoutMs);
}

/**
 * The answer: one JSON document, or one line of the steps reached. A wait the time limit ended
 * before the agent joined is a failure (exit status 1) that still says the state reached.
 */
function render(context: Context, spawned: Spawned, timeoutMs: number) {
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
    // Milliseconds from the command's start: pane opened, engine found, on the roster, done.
    timings: spawned.timings,
  };
  if (state !== "joined")
    throw new Refusal(
      "time-limit",
      `${spawnedLine(spawned)}: the time limit (${timeoutMs / 1000} s) ended the wait; see it with muster spawn --list, or end it with muster stop ${record.label}`,
      document,
    );
  if (context.json) return context.emit(document);
  context.out(printable(spawnedLine(spawned)));
}
