// `muster spawn`: open a pane beside the caller's own seat and start an engine there, then wait
// until it is proven there: the pane exists, discovery finds the engine's process in it, and
// (where the engine joins by itself) its label is on the roster; the task goes as its first mail.
// Every decision is a leaf call: the seat and the pane (tmux), the launch and the agent found
// (reconciler), the label (core). This file is wiring, waiting and rendering.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { callerId, chooseLabel, printable } from "@muster/core";
import { processStart, readProcessTable } from "@muster/node";
import {
  BUILTIN_ENGINES,
  findSpawned,
  type Launch,
  launchCommand,
  scanResult,
  seatKeyOf,
} from "@muster/reconciler";
import type { Roster } from "@muster/roster";
import { decideStop, listPanes, openPane, type Seat, type SpawnRecord } from "@muster/tmux";
import { findMyAgent, findMySeat } from "@muster/wiring";
import { type Context, Refusal } from "./_context.js";
import { checkLabel, readSpawnRecord, writeSpawnRecord } from "./_spawn-records.js";
import { createWorktree } from "./_spawn-worktree.js";

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

/** How far the new agent got: each state includes the ones before it. */
type Reached = "opened" | "started" | "joined";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

function workingDirectory(context: Context, cwd: string | undefined): string {
  const folder = path.resolve(context.io.cwd, cwd ?? ".");
  const isFolder = (() => {
    try {
      return statSync(folder).isDirectory();
    } catch {
      return false;
    }
  })();
  if (!isFolder) throw new Refusal("bad-cwd", `${folder} is not a directory: pass --cwd with one`);
  return folder;
}

/** The caller's seat, proven by ancestry; no seat, no spawn. */
async function callerSeat(context: Context) {
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
  if (!seated.ok) {
    const fix = seated.reason === "outside-tmux" ? "; run muster spawn from a pane in tmux" : "";
    throw new Refusal(
      seated.reason,
      `no seat to spawn beside, nothing opened: ${seated.error}${fix}`,
    );
  }
  return { seat: seated.seat, caller };
}

/** Wait until discovery finds the engine's process in the new pane, or the time is up. */
async function waitForAgent(
  context: Context,
  seat: Seat,
  pane: string,
  launch: Launch,
  deadline: number,
) {
  const seatKey = seatKeyOf(seat.server, pane);
  while (Date.now() < deadline) {
    const [listed, table] = await Promise.all([
      listPanes(context.run, { socket: seat.server }),
      readProcessTable(),
    ]);
    const result = scanResult(
      {
        servers: [
          { server: seat.server, panes: listed.ok ? listed.inventory.panes : "unavailable" },
        ],
        processes: table.ok ? table.processes : { error: table.error },
        exclude: [process.pid],
      },
      BUILTIN_ENGINES,
    );
    const found = findSpawned(result, { seatKey, engine: launch.engine });
    if (found.ok) return found.agent;
    await sleep(100);
  }
  return undefined;
}

async function waitForLabel(roster: Roster, label: string, deadline: number) {
  while (Date.now() < deadline) {
    const read = await roster.read();
    if (
      read.ok &&
      read.members.some((member) => member.label.toLowerCase() === label && member.state === "live")
    )
      return true;
    await sleep(150);
  }
  return false;
}

/** A label for the new agent: the one asked for, or a generated one no member holds. */
async function chooseSpawnLabel(context: Context, roster: Roster, engine: string, asked?: string) {
  const read = await roster.read();
  const held = read.ok
    ? read.members.filter((member) => member.state !== "expired").map((member) => member.label)
    : [];
  const label =
    asked !== undefined
      ? checkLabel(asked)
      : chooseLabel({ taken: held, random: Math.random, prefix: engine }).label;
  if (held.some((holder) => holder.toLowerCase() === label))
    throw new Refusal("label-held", `"${label}" is held on the team: pick another with --label`);
  const team = await context.team();
  const previous = await readSpawnRecord(team, label);
  if (previous) {
    const listed = await listPanes(context.run, { socket: previous.server });
    const scan = listed.ok
      ? {
          answered: true as const,
          server: listed.inventory.server,
          pane: listed.inventory.panes.find((pane) => pane.id === previous.pane),
          start: processStart(previous.pid),
        }
      : { answered: false as const };
    if (decideStop(previous, scan).ok)
      throw new Refusal(
        "label-spawned",
        `muster already runs "${label}" in pane ${previous.pane}: stop it with muster stop ${label}, or pick another --label`,
      );
  }
  const by = read.ok ? read.members : [];
  return { label, members: by };
}

/** The start time of the process tmux started: it exists once tmux has printed its pid. */
async function startOf(pid: number): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const start = processStart(pid);
    if (start !== undefined) return start;
    await sleep(25);
  }
  throw new Refusal(
    "no-process",
    `the process tmux started (pid ${pid}) exited at once: check the command runs`,
  );
}

export async function spawnCommand(context: Context, options: SpawnOptions) {
  const began = performance.now();
  const since = () => Math.round(performance.now() - began);
  const timings: Record<string, number> = {};
  const task = readTask(context, options);
  const launched = launchCommand(options.engine, {
    task,
    extra: options.extra,
    command: options.command,
  });
  if (!launched.ok) throw new Refusal(launched.reason, launched.error);
  const { launch } = launched;
  let cwd = workingDirectory(context, options.cwd);
  const [roster, team] = await Promise.all([context.roster(), context.team()]);
  const { label, members } = await chooseSpawnLabel(context, roster, launch.engine, options.label);
  const { seat, caller } = await callerSeat(context);
  // Only once the seat is proven: no seat, nothing created.
  if (options.worktree) cwd = await createWorktree(cwd, label, options.worktree.branch);
  const opened = await openPane(
    context.run,
    { socket: seat.server },
    {
      beside: seat.pane,
      window: options.window,
      cwd,
      env: { MUSTER_LABEL: label, MUSTER_TEAM_DIR: team.dir },
      command: launch.argv,
    },
  );
  if (!opened.ok) throw new Refusal(opened.reason, opened.error);
  const pane = opened.opened;
  const spawner = caller ? members.find((member) => member.pid === caller.pid) : undefined;
  const record: SpawnRecord = {
    v: 1,
    label,
    engine: launch.engine,
    server: seat.server,
    serverPid: pane.serverPid,
    pane: pane.pane,
    pid: pane.pid,
    start: await startOf(pane.pid),
    cwd,
    by: { pane: seat.pane, label: spawner?.label },
    at: new Date().toISOString(),
  };
  await writeSpawnRecord(team, record);
  timings.openedMs = since();
  const deadline = Date.now() + options.timeoutMs;
  let reached: Reached = "opened";
  const agent = await waitForAgent(context, seat, pane.pane, launch, deadline);
  if (agent) {
    reached = "started";
    timings.startedMs = since();
  }
  if (agent && (await waitForLabel(roster, label, deadline))) {
    reached = "joined";
    timings.joinedMs = since();
  }
  let mailed = false;
  if (task !== undefined && task !== "" && reached === "joined") {
    const receipt = await roster.send({
      from: caller ? callerId(caller) : `spawn-${process.pid}`,
      to: label,
      body: task,
      guest: spawner?.label ?? "muster",
    });
    mailed = receipt.ok;
    if (!receipt.ok) context.warn(`the task was not mailed to ${label}: ${receipt.error}`);
  }
  timings.doneMs = since();
  render(context, { record, reached, agentPid: agent?.pid, task, mailed, launch, seat, timings });
}

function render(
  context: Context,
  spawned: {
    record: SpawnRecord;
    reached: Reached;
    agentPid: number | undefined;
    task: string | undefined;
    mailed: boolean;
    launch: Launch;
    seat: Seat;
    timings: Record<string, number>;
  },
) {
  const { record, reached, launch } = spawned;
  if (context.json)
    return context.emit({
      ok: reached === "joined",
      label: record.label,
      engine: record.engine,
      pane: record.pane,
      pid: spawned.agentPid ?? record.pid,
      server: record.server,
      session: spawned.seat.session,
      cwd: record.cwd,
      state: reached,
      task:
        spawned.task === undefined
          ? null
          : { mailed: spawned.mailed, commandLine: launch.taskOnCommandLine },
      // Milliseconds from the command's start: pane opened, engine found, on the roster, done.
      timings: spawned.timings,
    });
  const steps = [`pane ${record.pane} opened in ${spawned.seat.sessionName}`];
  steps.push(
    reached === "opened"
      ? `${launch.engine} not found in it yet`
      : `${launch.engine} started (pid ${spawned.agentPid})`,
  );
  if (reached !== "opened")
    steps.push(
      reached === "joined" ? `joined as ${record.label}` : `not on the team yet as ${record.label}`,
    );
  if (spawned.task !== undefined) steps.push(spawned.mailed ? "task mailed" : "task not mailed");
  context.out(printable(steps.join("; ")));
}
