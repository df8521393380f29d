// Spawning a teammate beside a caller, as every door (the CLI, the pi extension, the MCP server)
// does it: open a pane beside the caller's proven seat and start the engine there, then wait until
// it is proven there: the pane exists, discovery finds the engine's process in it, and (where the
// engine joins by itself) its label is on the roster; the task goes as its first mail. Every
// decision is a leaf call: the pane (tmux), the launch and the agent found (reconciler), the label
// (core). Each door finds its caller's seat its own way and renders the answer.
import { statSync } from "node:fs";
import path from "node:path";
import type { MailMode } from "@muster/core/internal";
import { processStart } from "@muster/node";
import { type FoundAgent, type Launch, launchCommand } from "@muster/reconciler";
import type { Member, Roster } from "@muster/roster";
import { openPane, type Seat, type SpawnRecord, type TmuxRunner } from "@muster/tmux";
import { recordTrouble } from "./activity.ts";
import { freshSession, sessionOfMember } from "./engine-session.ts";
import { chooseSpawnLabel, claimSpawnLabel, refuseTaken } from "./spawn-claim.ts";
import { type SpawnTrouble, troubleLine } from "./spawn-look.ts";
import { MAIL_WORDS, mailTask, paneMail } from "./spawn-mail.ts";
import { removeSpawnRecord, writeSpawnRecord } from "./spawn-records.ts";
import { SpawnRefusal } from "./spawn-refusal.ts";
import {
  FIRST_TURN_LOOK_MS,
  type SpawnProgress,
  type SpawnSeen,
  type SpawnState,
  waitForMember,
  whatWasSeen,
} from "./spawn-wait.ts";
import { createWorktree } from "./spawn-worktree.ts";

export type { SpawnState } from "./spawn-wait.ts";

export type SpawnRequest = {
  engine: string;
  label?: string | undefined;
  task?: string | undefined;
  /** A new window after the caller's instead of a split of its pane. */
  window?: boolean | undefined;
  /** Where it starts: an absolute folder (default: the caller's working directory). */
  cwd: string;
  /** Start it in a new git worktree beside the repository, on this branch (or muster/<label>). */
  worktree?: { branch?: string | undefined } | undefined;
  timeoutMs: number;
  extra?: readonly string[] | undefined;
  command?: readonly string[] | undefined;
  /** Its mail does not wake it (default: it wakes for its mail, unless the shell's MUSTER_MAIL says otherwise). */
  quiet?: boolean | undefined;
  /**
   * Its engine session: resumed (`muster up`), or a fresh one under this id. Default: a fresh one
   * muster names where the engine lets it (pi, Claude Code), recorded for `muster up`.
   */
  session?: { id: string; resume: boolean } | undefined;
  /** A worktree it had before (`muster up`): started there as it is, never reset or re-created. */
  keptWorktree?: { path: string; branch: string } | undefined;
};

/** Who asks: its seat (proven, or why there is none) and its id on the team (the task's sender). */
export type SpawnCaller = {
  seat: { ok: true; seat: Seat } | { ok: false; reason: string; error: string; fix?: string };
  /** The member id the task is mailed from; a caller that is not a member sends as a guest. */
  id: string;
  /** The caller's pid: its label is the member's with that pid when `id` names none. */
  pid?: number | undefined;
};

export type SpawnEffects = {
  roster: Roster;
  /** The team folder: the spawn records live in its `spawned/`. */
  teamDir: string;
  run: TmuxRunner;
  /** Processes discovery leaves out (the caller's own). */
  exclude?: readonly number[] | undefined;
  /**
   * Whether the engine is set up to join the team (its MCP entry, its extension), asked before
   * anything is claimed or opened: a refusal here ends the spawn at once, with its fix.
   */
  ready?:
    | ((launch: Launch, request: SpawnRequest) => Promise<SpawnFailure | undefined>)
    | undefined;
  /** Each step of the wait, and every few seconds that it still waits, for a door to show. */
  progress?: ((step: SpawnProgress) => void) | undefined;
  /**
   * The spawning shell's environment: its mail settings reach the pane (core's spawnedMail), and
   * the engine's own state is read with it (Claude Code's registry); default process.env.
   */
  env?: NodeJS.ProcessEnv | undefined;
};

export type Spawned = {
  ok: true;
  record: SpawnRecord;
  state: SpawnState;
  /** The engine's process, once discovery found it; else the process tmux started. */
  pid: number;
  session: string;
  sessionName: string;
  launch: Launch;
  task: { mailed: boolean; commandLine: boolean } | null;
  /** How mail reaches it: the mode its pane was started with. */
  mail: MailMode;
  /** Milliseconds from the start: pane opened, engine found, on the roster, done. */
  timings: Record<string, number>;
  warnings: string[];
  /** The engine's process as discovery found it, to adopt as verified. */
  agent: FoundAgent | undefined;
  /** When the time limit ended the wait before it joined: what the pane showed then. */
  seen?: SpawnSeen | undefined;
  /**
   * The engine cannot work, as its pane showed it (its own words that it cannot run a turn, or its
   * program ended at start): the spawn failed, whatever state it reached; the task is not mailed.
   */
  trouble?: SpawnTrouble | undefined;
};

/** A refused spawn: what happened and, apart, what to do (`errorLine` joins them). */
export type SpawnFailure = { ok: false; reason: string; error: string; fix?: string | undefined };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function checkFolder(folder: string): string {
  const isFolder = (() => {
    try {
      return statSync(folder).isDirectory();
    } catch {
      return false;
    }
  })();
  if (!path.isAbsolute(folder) || !isFolder)
    throw new SpawnRefusal("bad-cwd", `${folder} is not a directory`, "give a folder that is one");
  return folder;
}

/**
 * The start time of the process tmux started: it exists once tmux has printed its pid. One that
 * already ended (an engine that dies at once) has none: its pane is kept with its last words, and
 * its record says "0", which no running process's start time equals (stop closes only the pane
 * kept dead, which names that pid).
 */
async function startOf(pid: number): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const start = processStart(pid);
    if (start !== undefined) return start;
    await sleep(25);
  }
  return "0";
}

/**
 * Spawn `request.engine` beside the caller's seat and wait until it is proven there, or the time
 * limit ends the wait with the state reached. No seat, no spawn: nothing is opened or created.
 */
export async function spawnAgent(
  request: SpawnRequest,
  caller: SpawnCaller,
  effects: SpawnEffects,
): Promise<Spawned | SpawnFailure> {
  try {
    return await spawnOrThrow(request, caller, effects);
  } catch (error) {
    if (error instanceof SpawnRefusal)
      return { ok: false, reason: error.reason, error: error.error, fix: error.fix };
    throw error;
  }
}

async function spawnOrThrow(
  request: SpawnRequest,
  caller: SpawnCaller,
  effects: SpawnEffects,
): Promise<Spawned> {
  const began = performance.now();
  const since = () => Math.round(performance.now() - began);
  const task = request.task === "" ? undefined : request.task;
  const launched = launchCommand(request.engine, {
    task,
    extra: request.extra,
    command: request.command,
    session: request.command ? undefined : (request.session ?? freshSession(request.engine)),
  });
  if (!launched.ok) throw new SpawnRefusal(launched.reason, launched.error, launched.fix);
  const { launch } = launched;
  const cwd = checkFolder(request.cwd);
  const { label, members } = await chooseSpawnLabel(effects, launch.engine, request.label);
  if (!caller.seat.ok)
    throw new SpawnRefusal(
      caller.seat.reason,
      `no seat to spawn beside, nothing opened: ${caller.seat.error}`,
      caller.seat.fix,
    );
  const { seat } = caller.seat;
  // An engine that is not set up to join would be waited on in silence: refused before any claim.
  const unready = await effects.ready?.(launch, { ...request, cwd });
  if (unready) throw new SpawnRefusal(unready.reason, unready.error, unready.fix);
  const spawner =
    members.find((member) => member.id === caller.id) ??
    members.find((member) => member.pid === caller.pid);
  // The label is this spawn's before anything opens; the checks above are made again under it.
  const claim = await claimSpawnLabel(effects.roster, label, {
    pane: seat.pane,
    label: spawner?.label,
  });
  try {
    const read = await effects.roster.read();
    await refuseTaken(effects, label, read.ok ? read.members : members);
    const opening = { request, caller, effects, launch, label, seat, spawner, cwd, task, since };
    return await openAndWait(opening);
  } finally {
    await claim.release();
  }
}

type Opening = {
  request: SpawnRequest;
  caller: SpawnCaller;
  effects: SpawnEffects;
  launch: Launch;
  label: string;
  seat: Seat;
  spawner: Member | undefined;
  cwd: string;
  task: string | undefined;
  /** Milliseconds since the spawn began. */
  since: () => number;
};

/** Open the pane, record it, and wait until the agent is proven there (or the time is up). */
async function openAndWait(opening: Opening): Promise<Spawned> {
  const { request, caller, effects, launch, label, seat, spawner, task, since } = opening;
  const timings: Record<string, number> = {};
  const warnings: string[] = [];
  let { cwd } = opening;
  // The shell's mail settings, checked before anything is created.
  const mail = paneMail(effects.env ?? process.env, request.quiet);
  // Only once the seat is proven: no seat, nothing created.
  const worktree =
    request.keptWorktree ??
    (request.worktree ? await createWorktree(cwd, label, request.worktree.branch) : undefined);
  if (worktree) cwd = worktree.path;
  const opened = await openPane(
    effects.run,
    { socket: seat.server },
    {
      beside: seat.pane,
      afterWindow: request.window ? seat.window : undefined,
      cwd,
      // A team on NATS is found again from the repository; only a folder team is named.
      env: {
        MUSTER_LABEL: label,
        ...mail.env,
        ...(effects.roster.store.kind === "folder" ? { MUSTER_TEAM_DIR: effects.teamDir } : {}),
      },
      command: launch.argv,
      // An engine that dies at start keeps its last words in the pane for the person to read.
      keepOnFailure: true,
    },
  );
  if (!opened.ok) throw new SpawnRefusal(opened.reason, opened.error, opened.fix);
  const pane = opened.opened;
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
    ...(worktree ? { worktree } : {}),
    ...(launch.session ? { session: launch.session.id } : {}),
  };
  await writeSpawnRecord({ dir: effects.teamDir }, record);
  timings.openedMs = since();
  // A task on the command line is a first turn at once: its trouble shows within seconds.
  const firstTurnMs = launch.taskOnCommandLine ? FIRST_TURN_LOOK_MS : 0;
  const waited = await waitForMember(effects, record, request.timeoutMs, since, firstTurnMs);
  const { state, agent, trouble } = waited;
  if (waited.startedMs !== undefined) timings.startedMs = waited.startedMs;
  if (waited.joinedMs !== undefined) timings.joinedMs = waited.joinedMs;
  // A pane that closed with its program leaves nothing to stop: its record goes.
  if (trouble?.kind === "gone") await removeSpawnRecord({ dir: effects.teamDir }, record.label);
  else if (state === "joined") await recordSession(effects, record);
  // Every door shows such a member as in trouble, with its engine's words, not as idle.
  if (state === "joined" && trouble?.kind === "said")
    await recordTrouble(effects.roster, record.label, trouble.said);
  let mailed = false;
  if (task !== undefined && state === "joined" && !trouble) {
    const guest = spawner?.label ?? "muster";
    const mailing = { from: caller.id, to: label, body: task, guest, launch };
    const sent = await mailTask(effects.roster, mailing);
    mailed = sent.mailed;
    if (sent.warning) warnings.push(sent.warning);
  }
  timings.doneMs = since();
  return {
    ok: true,
    record,
    state,
    pid: agent?.pid ?? record.pid,
    session: seat.session,
    sessionName: seat.sessionName,
    launch,
    task: task === undefined ? null : { mailed, commandLine: launch.taskOnCommandLine },
    mail: mail.mode,
    timings,
    warnings,
    agent,
    ...(trouble ? { trouble } : {}),
    ...(state === "joined" || trouble ? {} : { seen: await whatWasSeen(effects, record, agent) }),
  };
}

/** A session the engine named itself (a Codex's thread, once it joined as it): recorded. */
async function recordSession(effects: SpawnEffects, record: SpawnRecord) {
  if (record.session !== undefined) return;
  const read = await effects.roster.read();
  const member = read.ok ? read.members.find((entry) => entry.label === record.label) : undefined;
  const session = member && sessionOfMember(record.engine, member.id);
  if (session === undefined) return;
  record.session = session;
  await writeSpawnRecord({ dir: effects.teamDir }, record);
}

/** Whether the spawn did what it was for: the agent joined, and its engine can work. */
export const spawnWorks = (spawned: Spawned) => spawned.state === "joined" && !spawned.trouble;

/** The state reached, in one line: "pane %7 opened in main; pi started (pid 42); joined as bob; woken by its mail". */
export function spawnedLine(spawned: Spawned): string {
  const { record, state, launch } = spawned;
  const steps = [`pane ${record.pane} opened in ${spawned.sessionName}`];
  steps.push(
    state === "opened"
      ? `${launch.engine} not found in it yet`
      : `${launch.engine} started (pid ${spawned.pid})`,
  );
  if (state !== "opened")
    steps.push(
      state === "joined" ? `joined as ${record.label}` : `not on the team yet as ${record.label}`,
    );
  if (state === "joined") steps.push(MAIL_WORDS[spawned.mail]);
  if (spawned.task) steps.push(spawned.task.mailed ? "task mailed" : "task not mailed");
  if (spawned.trouble) steps.push(`but ${troubleLine(record, spawned.trouble)}`);
  return steps.join("; ");
}
