// The spawn's second half, once its label is claimed and its seat proven: open the pane, record it
// (with the engine session it was started in), wait until the agent is proven there, and mail the
// task. The first half (the checks, the claim) is spawn.ts; every decision is a leaf call.
import { refusedArgument } from "@muster/core/internal";
import { processStart } from "@muster/node";
import type { Launch } from "@muster/reconciler";
import type { Member } from "@muster/roster";
import { openPane, type Seat, type SpawnRecord } from "@muster/tmux";
import { recordTrouble } from "./activity.ts";
import { sessionOfMember } from "./engine-session.ts";
import { mailTask, paneMail } from "./spawn-mail.ts";
import { removeSpawnRecord, writeSpawnRecord } from "./spawn-records.ts";
import { SpawnRefusal } from "./spawn-refusal.ts";
import type { SpawnCaller, SpawnEffects, Spawned, SpawnRequest } from "./spawn-types.ts";
import { FIRST_TURN_LOOK_MS, waitForMember, whatWasSeen } from "./spawn-wait.ts";
import { createWorktree } from "./spawn-worktree.ts";

/** What the first half proved and chose, handed to the second. */
export type Opening = {
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** The engine arguments to keep on the record: only those core's team rules allow (its model). */
function modelArgs(engine: string, extra: readonly string[] | undefined) {
  if (!extra || extra.length === 0 || refusedArgument(engine, extra) !== undefined)
    return undefined;
  return { args: [...extra] };
}

/** Open the pane (in its worktree, made only now that the seat is proven) and record it. */
async function openRecorded(opening: Opening, mailEnv: ReturnType<typeof paneMail>["env"]) {
  const { request, effects, launch, label, seat, spawner } = opening;
  const worktree =
    request.keptWorktree ??
    (request.worktree
      ? await createWorktree(opening.cwd, label, request.worktree.branch)
      : undefined);
  const cwd = worktree?.path ?? opening.cwd;
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
        ...mailEnv,
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
    // Its model choice comes back with it (`muster up <label>`); any other argument is not kept.
    ...(modelArgs(launch.engine, request.extra) ?? {}),
  };
  await writeSpawnRecord({ dir: effects.teamDir }, record);
  return record;
}

/** Open the pane, record it, and wait until the agent is proven there (or the time is up). */
export async function openAndWait(opening: Opening): Promise<Spawned> {
  const { request, caller, effects, launch, label, seat, spawner, task, since } = opening;
  const timings: Record<string, number> = {};
  const warnings: string[] = [];
  // The shell's mail settings, checked before anything is created.
  const mail = paneMail(effects.env ?? process.env, request.quiet);
  const record = await openRecorded(opening, mail.env);
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
