// `muster up` (and the dashboard's `u`): bring the team muster.toml declares up. Each member that is
// not live is spawned by the shared spawn (its label claimed first, so of two `up`s at once one
// starts it), resumed into the engine session its spawn record names (the same conversation, cwd,
// worktree and branch), else fresh with its task. A member muster spawned by hand, named on the
// command line, comes back from its record alone. Nothing here resets or removes a worktree.
import { existsSync } from "node:fs";
import { holderOf, withSuggestion } from "@muster/core";
import { refusedArgument } from "@muster/core/internal";
import { namesSession, resumesSession } from "@muster/reconciler";
import type { SpawnRecord } from "@muster/tmux";
import { engineSessionExists, freshSession } from "./engine-session.ts";
import { type SpawnCaller, type SpawnRequest, spawnAgent } from "./spawn.ts";
import { readSpawnRecord, readSpawnRecords } from "./spawn-records.ts";
import { madeBefore } from "./spawn-worktree.ts";
import { closeEndedPane } from "./spawned.ts";
import { readTeamFile } from "./team-file.ts";
import { forwardWaiting, liveNow, recordedPlace, refuseUnready } from "./team-up-check.ts";
import type { MemberUp, TeamEffects, TeamUp, TeamUpRequest } from "./team-up-types.ts";
import { settleWindow, teamWindow, tile } from "./team-window.ts";

/** What to bring up: a declared member, or one muster spawned by hand (its record). */
type Wanted = {
  label: string;
  engine: string;
  task?: string | undefined;
  worktree?: true | string | undefined;
  args: string[];
  wake: boolean;
};

/** Members opened at once: each waits for its engine to join, the panes open one by one. */
const AT_ONCE = 4;

/** Bring every declared member that is not live up: resumed where a session is recorded. */
export async function teamUp(request: TeamUpRequest, effects: TeamEffects): Promise<TeamUp> {
  const team = await readTeamFile({ cwd: request.cwd, env: effects.env });
  if (!team.ok) return team;
  const wanted: Wanted[] = [];
  for (const label of request.labels ?? team.members.map((member) => member.label)) {
    const declared = team.members.find((member) => member.label === label.toLowerCase());
    const record = declared ? undefined : await readSpawnRecord({ dir: effects.teamDir }, label);
    if (declared) wanted.push(declared);
    else if (record)
      wanted.push({
        label: record.label,
        engine: record.engine,
        // Its model choice as spawn kept it, checked again (a file in the team folder).
        args: record.args && !refusedArgument(record.engine, record.args) ? record.args : [],
        wake: true,
      });
    else {
      const { records } = await readSpawnRecords({ dir: effects.teamDir });
      const known = [...team.members, ...records].map((each) => each.label);
      return withSuggestion(
        {
          ok: false as const,
          reason: "not-declared" as const,
          error: `muster.toml declares no member ${label}, and muster never spawned one`,
          fix: 'declare it in muster.toml ([[member]] label = "…", engine = "…"), or muster spawn it',
        },
        label,
        known,
      );
    }
  }
  if (wanted.length === 0)
    return {
      ok: false,
      reason: "no-team",
      error: team.file
        ? `${team.file} declares no team`
        : `there is no muster.toml in ${team.root}`,
      fix: `${team.file ? "add" : "write one with"} a [[member]] table per member: label = "alice", engine = "pi", task = "…"`,
    };
  // An engine that cannot work would be waited on for the whole time limit: refused, nothing opened.
  const unready = await refuseUnready(wanted, effects, team.root);
  if (unready) return unready;
  let window: Extract<TeamUp, { ok: true }>["window"];
  let caller: SpawnCaller | undefined = request.here;
  if (!caller) {
    const opened = await teamWindow(effects.run, effects.target, team.name);
    if (!opened.ok) return opened;
    const { seat } = opened;
    const name = team.name;
    window = { session: seat.sessionName, window: seat.window, name, started: opened.started };
    caller = { seat: { ok: true, seat }, id: `muster-up-${process.pid}` };
  }
  // A pane of the team's window, looked up for each member: the one found first may be closing (a
  // member quitting, a down killed after it asked) and tmux cannot split a pane that is gone.
  const seated = async (): Promise<SpawnCaller> => {
    if (!window) return caller!;
    const opened = await teamWindow(effects.run, effects.target, team.name);
    if (!opened.ok) return caller!;
    window.window = opened.seat.window;
    return { seat: { ok: true, seat: opened.seat }, id: caller!.id };
  };
  const members: MemberUp[] = new Array(wanted.length);
  let next = 0;
  const worker = async () => {
    while (next < wanted.length) {
      const index = next++;
      if (window) await tile(effects.run, effects.target, window.window);
      members[index] = await memberUp(wanted[index]!, request, effects, seated, team.root);
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, wanted.length) }, worker));
  // An up that opened no one (every member live, or each refused) leaves no placeholder behind.
  const opened = members.some((member) => member.pane !== undefined);
  if (window) await settleWindow(effects.run, effects.target, window.window, opened);
  return { ok: true, members, ...(window ? { window } : {}) };
}

/** Resume, or a fresh session and why: `--fresh`, nothing recorded, or the session is gone. */
function chooseSession(
  member: Wanted,
  record: SpawnRecord | undefined,
  fresh: boolean | undefined,
  env: NodeJS.ProcessEnv,
): { session: SpawnRequest["session"]; note?: string } {
  const id = record?.engine === member.engine ? record.session : undefined;
  if (fresh || id === undefined || !resumesSession(member.engine))
    return { session: freshSession(member.engine) };
  // Gone (deleted, from another machine, or never written: no turn yet): a new conversation, under
  // the same id where muster names the engine's sessions, so its member id stays.
  if (engineSessionExists(member.engine, id, env) === false)
    return {
      session: namesSession(member.engine) ? { id, resume: false } : freshSession(member.engine),
      note: `its ${member.engine} session ${id} has no conversation here (deleted, from another machine, or never used): started fresh`,
    };
  return { session: { id, resume: true } };
}

/** Start one member in its pane: resumed in `session`, in its kept worktree, else as declared. */
async function startMember(
  member: Wanted,
  up: { request: TeamUpRequest; effects: TeamEffects; caller: SpawnCaller; root: string },
  place: Awaited<ReturnType<typeof recordedPlace>>,
  session: SpawnRequest["session"],
) {
  const { request, effects, caller, root } = up;
  const { label, engine } = member;
  // Its worktree as it left it (never reset: a moved branch or changes stay as they are), or the
  // one an `up` killed before it recorded it made for it (else git would refuse it for good).
  const kept =
    place.worktree && existsSync(place.worktree.path)
      ? place.worktree
      : member.worktree
        ? await madeBefore(root, label, member.worktree === true ? undefined : member.worktree)
        : undefined;
  return spawnAgent(
    {
      engine,
      label,
      // A resumed member had its task the first time: it is neither prompted nor mailed again.
      task: session?.resume ? undefined : member.task,
      cwd: kept?.path ?? place.cwd ?? root,
      keptWorktree: kept,
      worktree:
        kept || !member.worktree
          ? undefined
          : { branch: member.worktree === true ? undefined : member.worktree },
      timeoutMs: request.timeoutMs,
      extra: member.args,
      quiet: !member.wake,
      session,
    },
    caller,
    {
      roster: effects.roster,
      teamDir: effects.teamDir,
      run: effects.run,
      env: effects.env ?? process.env,
      exclude: effects.exclude,
      progress: effects.progress && ((step) => effects.progress!(label, step)),
    },
  );
}

async function memberUp(
  member: Wanted,
  request: TeamUpRequest,
  effects: TeamEffects,
  seated: () => Promise<SpawnCaller>,
  root: string,
): Promise<MemberUp> {
  const { label, engine } = member;
  const first = await readSpawnRecord({ dir: effects.teamDir }, label);
  const live = await liveNow(effects, label, first);
  if (live)
    return {
      label,
      engine,
      outcome: "live",
      id: live.id,
      session: first?.session,
      ...(live.id === undefined
        ? { note: "its pane runs (an earlier up or spawn started it); not on the team yet" }
        : {}),
    };
  // Its record as it is now: a down that ended it while `liveNow` waited left its session and the
  // id its mail waits under there.
  const record = await readSpawnRecord({ dir: effects.teamDir }, label);
  // Its pane from before, where its engine ended (it crashed, or a down or stop that was killed
  // asked it to quit): closed as a stop or down would have (tmux keeps it dead, or a while).
  if (record !== undefined && record.down === undefined) await closeEndedPane(effects.run, record);
  const env = effects.env ?? process.env;
  const chosen = chooseSession(member, record, request.fresh, env);
  const { session } = chosen;
  // Only this repository's folders: a record any process may write names no other.
  const place = await recordedPlace(root, record);
  const note = [place.note, chosen.note].filter(Boolean).join("; ") || undefined;
  const up = { request, effects, caller: await seated(), root };
  let spawned = await startMember(member, up, place, session);
  // The pane it was to open beside closed in between: once more, beside one that is there now.
  if (!spawned.ok && spawned.reason === "refused")
    spawned = await startMember(member, { ...up, caller: await seated() }, place, session);
  if (!spawned.ok) {
    if (spawned.reason === "label-held" || spawned.reason === "label-spawned")
      return { label, engine, outcome: "live" };
    if (spawned.reason === "label-spawning")
      return { label, engine, outcome: "racing", note: spawned.error };
    return { label, engine, outcome: "failed", error: spawned.error, fix: spawned.fix };
  }
  const read = await effects.roster.read();
  const joined = read.ok ? holderOf(read.members, label) : undefined;
  // Back under a new member id (a resumed Claude Code): the mail that waited while it was down.
  if (joined && record?.down !== undefined && record.member !== undefined)
    await forwardWaiting(effects, { id: record.member, label }, joined.id, joined);
  const failed = spawned.state !== "joined" || spawned.trouble !== undefined;
  const { pane } = spawned.record;
  return {
    label,
    engine,
    outcome: failed ? "failed" : session?.resume ? "resumed" : "fresh",
    session: spawned.record.session,
    pane,
    id: joined?.id,
    ...(note ? { note } : {}),
    ...(failed
      ? {
          error: spawned.trouble
            ? `${engine} cannot work: look at pane ${pane}`
            : `${label} did not join in ${Math.round(request.timeoutMs / 1000)} s (${spawned.state})`,
          fix: `look at pane ${pane}, then muster up ${label} again`,
        }
      : {}),
  };
}
