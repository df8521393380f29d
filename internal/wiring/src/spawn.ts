// Spawning a teammate beside a caller, as every door (the CLI, the pi extension, the MCP server)
// does it: open a pane beside the caller's proven seat and start the engine there, then wait until
// it is proven there: the pane exists, discovery finds the engine's process in it, and (where the
// engine joins by itself) its label is on the roster; the task goes as its first mail. Every
// decision is a leaf call: the pane (tmux), the launch and the agent found (reconciler), the label
// (core). Each door finds its caller's seat its own way and renders the answer. This file checks
// and claims; spawn-open.ts opens, records and waits.
import { statSync } from "node:fs";
import path from "node:path";
import { launchCommand } from "@muster/reconciler";
import { freshSession } from "./engine-session.ts";
import { chooseSpawnLabel, claimSpawnLabel, refuseTaken } from "./spawn-claim.ts";
import { troubleLine } from "./spawn-look.ts";
import { MAIL_WORDS } from "./spawn-mail.ts";
import { openAndWait } from "./spawn-open.ts";
import { SpawnRefusal } from "./spawn-refusal.ts";
import type {
  SpawnCaller,
  SpawnEffects,
  Spawned,
  SpawnFailure,
  SpawnRequest,
} from "./spawn-types.ts";

export type {
  SpawnCaller,
  SpawnEffects,
  Spawned,
  SpawnFailure,
  SpawnRequest,
} from "./spawn-types.ts";
export type { SpawnState } from "./spawn-wait.ts";

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
