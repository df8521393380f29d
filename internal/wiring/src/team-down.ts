// `muster down` (and the dashboard's `x`): take members muster started off, keeping what brings
// them back. Each is asked to quit with its engine's own signal, then its pane is closed (only
// while it is still the pane muster opened); its spawn record stays, marked down, with its engine
// session, so `muster up` resumes it. Its worktree, cards and mail are not touched.
import { holderOf, nearestName } from "@muster/core";
import { processAlive, processStart } from "@muster/node";
import { quitSignal } from "@muster/reconciler";
import type { SpawnRecord, TmuxRunner } from "@muster/tmux";
import { sessionOfMember } from "./engine-session.ts";
import { readSpawnRecord, readSpawnRecords, writeSpawnRecord } from "./spawn-records.ts";
import { closeSpawnedPane, engineInPane, judgeSpawned, markEnded } from "./spawned.ts";
import { readTeamFile } from "./team-file.ts";
import type { MemberDown, TeamDown, TeamDownRequest, TeamEffects } from "./team-up-types.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long an engine is given to quit on its own before its pane is closed under it. */
export const QUIT_MS = 5000;

/** The process a stop or down asks to quit: the engine found in the pane, else muster's own. */
export async function quitTarget(run: TmuxRunner, record: SpawnRecord): Promise<ProcessAt> {
  const engine = await engineInPane(run, record);
  return engine ? { pid: engine.pid, start: engine.start } : { pid: record.pid, start: record.start };
}

type ProcessAt = { pid: number; start: string };

/**
 * End what muster spawned in a pane already judged its own: the engine's quit signal (to `asked`,
 * found by `quitTarget` before, or now), up to QUIT_MS, then the pane, if it is still the one muster
 * opened (`closeSpawnedPane`). `quit`: it ended on its own quit; `closed`: its pane was closed.
 */
export async function endSpawned(
  run: TmuxRunner,
  record: SpawnRecord,
  asked?: ProcessAt,
): Promise<{ quit: boolean; closed: boolean }> {
  const target = asked ?? (await quitTarget(run, record));
  if (processStart(target.pid) === target.start) {
    try {
      process.kill(target.pid, quitSignal(record.engine));
    } catch {
      // gone meanwhile
    }
  }
  let quit = false;
  for (let waited = 0; waited < QUIT_MS && !quit; waited += 100) {
    quit = processAlive(target.pid, target.start) === "dead";
    if (!quit) await sleep(100);
  }
  return { quit, closed: await closeSpawnedPane(run, record) };
}

/** Take members down: the ones named, else every declared member and every one muster spawned. */
export async function teamDown(request: TeamDownRequest, effects: TeamEffects): Promise<TeamDown> {
  const team = await readTeamFile({ cwd: request.cwd, env: effects.env });
  if (!team.ok) return team;
  const { records } = await readSpawnRecords({ dir: effects.teamDir });
  const labels = request.labels?.map((label) => label.toLowerCase()) ?? [
    ...new Set([
      ...team.members.map((member) => member.label),
      ...records.map((record) => record.label),
    ]),
  ];
  // A label muster neither started nor finds declared is a typo, not a member to take down.
  const known = [...team.members.map((member) => member.label), ...records.map((r) => r.label)];
  const unknown = request.labels?.find(
    (label) => !known.some((each) => each.toLowerCase() === label.toLowerCase()),
  );
  if (unknown !== undefined) {
    const near = nearestName(unknown, known);
    return {
      ok: false,
      reason: "no-such-member",
      error: `muster started no member "${unknown}" and muster.toml declares none; nothing was taken down${near ? ` (did you mean "${near}"?)` : ""}`,
      fix: "name a member muster started or muster.toml declares (muster status lists them)",
    };
  }
  const members = await Promise.all(labels.map((label) => memberDown(label, effects)));
  return { ok: true, members };
}

async function memberDown(label: string, effects: TeamEffects): Promise<MemberDown> {
  const record = await readSpawnRecord({ dir: effects.teamDir }, label);
  const read = await effects.roster.read();
  const member = read.ok ? holderOf(read.members, label) : undefined;
  const kept = (session: string | undefined) => ({
    session,
    worktree: record?.worktree?.path,
  });
  if (!record)
    return {
      label,
      outcome: "not-running",
      kept: kept(undefined),
      ...(member ? { note: `${label} was not started by muster: it is left as it is` } : {}),
    };
  const session =
    record.session ?? (member ? sessionOfMember(record.engine, member.id) : undefined);
  const judged = await judgeSpawned(effects.run, record);
  if (!judged.ok && judged.reason === "not-ours")
    return { label, outcome: "not-ours", kept: kept(session), note: judged.error };
  // Marked before it is ended: its death is a down, never a crash (core's memberEnd).
  if (judged.ok) await markEnded(effects.roster, label, "down");
  const ended = judged.ok ? await endSpawned(effects.run, record) : undefined;
  // Off the team with its engine: a Codex's member is its thread, which the app-server daemon keeps
  // loaded (and its team server running) for about a minute after the TUI is gone.
  if (ended && member && (session === undefined || member.id.endsWith(session)))
    await effects.roster.leave(member.id);
  const at = record.down ?? new Date().toISOString();
  await writeSpawnRecord(
    { dir: effects.teamDir },
    {
      ...record,
      down: at,
      ...(session ? { session } : {}),
      // Where its mail waits while it is down (core's downMembers): the id it had on the team.
      ...(member ? { member: member.id } : {}),
    },
  );
  return {
    label,
    outcome: ended ? "down" : "not-running",
    ...(ended ? { quit: ended.quit } : {}),
    kept: kept(session),
  };
}

/** What `down` kept for a member, in one line: "kept its pi session 0190…, worktree /x". */
export function keptLine(member: MemberDown): string {
  const parts = [
    member.kept.session
      ? `its session ${member.kept.session}`
      : "no engine session (it will start fresh)",
    ...(member.kept.worktree ? [`its worktree ${member.kept.worktree}`] : []),
    "its cards and mail",
  ];
  return `kept ${parts.join(", ")}`;
}
