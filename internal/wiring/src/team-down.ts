// `muster down` (and the dashboard's `x`): take members muster started off, keeping what brings
// them back. Each is asked to quit with its engine's own signal, then its pane is closed (only
// while it is still the pane muster opened); its spawn record stays, marked down, with its engine
// session, so `muster up` resumes it. Its worktree, cards and mail are not touched.
import { holderOf, nearestName } from "@muster/core";
import { processAlive, processStart } from "@muster/node";
import { quitSignal } from "@muster/reconciler";
import type { SpawnRecord, TmuxRunner } from "@muster/tmux";
import { codexDaemonsOf, type DaemonsFound, settleDaemonsFound } from "./codex-daemon.ts";
import { sessionOfMember } from "./engine-session.ts";
import { claimEnding } from "./spawn-claim.ts";
import {
  type KeptDaemon,
  readKeptDaemons,
  readSpawnRecord,
  readSpawnRecords,
  writeKeptDaemons,
  writeSpawnRecord,
} from "./spawn-records.ts";
import { closeSpawnedPane, engineInPane, judgeSpawned, markSpawnedEnding } from "./spawned.ts";
import { readTeamFile } from "./team-file.ts";
import type { MemberDown, TeamDown, TeamDownRequest, TeamEffects } from "./team-up-types.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long an engine is given to quit on its own before its pane is closed under it. */
export const QUIT_MS = 5000;

/** The process a stop or down asks to quit: the engine found in the pane, else muster's own. */
export async function quitTarget(run: TmuxRunner, record: SpawnRecord): Promise<ProcessAt> {
  const engine = await engineInPane(run, record);
  return engine
    ? { pid: engine.pid, start: engine.start }
    : { pid: record.pid, start: record.start };
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
  const kept = await readKeptDaemons({ dir: effects.teamDir });
  const downs = await Promise.all(labels.map((label) => memberDown(label, effects, kept)));
  const members = downs.map((down) => down.member);
  // Codex's app-server daemon is detached from its TUI: once every member is down, each daemon
  // its Codex members started (or an earlier stop or down kept) ends where no Codex of its home is
  // left; else it is kept for the next stop or down, and the line says why (as `muster stop`).
  const found = downs.flatMap((down) => (down.found ? [down.found] : []));
  if (found.length === 0) return { ok: true, members };
  const daemon = await settleDaemonsFound(found);
  await writeKeptDaemons({ dir: effects.teamDir }, daemon?.kept ?? []);
  return {
    ok: true,
    members,
    ...(daemon ? { daemon: { pids: daemon.pids, ended: daemon.ended, note: daemon.line } } : {}),
  };
}

async function memberDown(
  label: string,
  effects: TeamEffects,
  keptDaemons: readonly KeptDaemon[],
): Promise<{ member: MemberDown; found?: DaemonsFound }> {
  const record = await readSpawnRecord({ dir: effects.teamDir }, label);
  const read = await effects.roster.read();
  const member = read.ok ? holderOf(read.members, label) : undefined;
  const kept = (session: string | undefined) => ({
    session,
    worktree: record?.worktree?.path,
  });
  if (!record)
    return {
      member: {
        label,
        outcome: "not-running",
        kept: kept(undefined),
        ...(member ? { note: `${label} was not started by muster: it is left as it is` } : {}),
      },
    };
  const session =
    record.session ?? (member ? sessionOfMember(record.engine, member.id) : undefined);
  const judged = await judgeSpawned(effects.run, record);
  if (!judged.ok && judged.reason === "not-ours")
    return { member: { label, outcome: "not-ours", kept: kept(session), note: judged.error } };
  // Marked before it is ended: its death is a down, never a crash (core's memberEnd); and an `up`
  // after this down is killed waits for it to go, even once it left the roster on its way out.
  // Its label held meanwhile (claimEnding): an `up` before the down is done is `racing`.
  const claim = judged.ok ? await claimEnding(effects.roster, record, "down") : undefined;
  try {
    if (judged.ok)
      await markSpawnedEnding({ dir: effects.teamDir }, effects.roster, record, "down");
    return await endMember(label, effects, keptDaemons, { record, member, session, judged });
  } finally {
    await claim?.release();
  }
}

/** The member's end, once marked: its engine asked to quit, its pane closed, its record kept. */
async function endMember(
  label: string,
  effects: TeamEffects,
  keptDaemons: readonly KeptDaemon[],
  facts: {
    record: SpawnRecord;
    member: { id: string } | undefined;
    session: string | undefined;
    judged: { ok: boolean };
  },
): Promise<{ member: MemberDown; found?: DaemonsFound }> {
  const { record, member, session, judged } = facts;
  const kept = { session, worktree: record.worktree?.path };
  // Its Codex's daemons are found before it is ended (by ancestry, while its Codex still runs).
  const asked = judged.ok ? await quitTarget(effects.run, record) : undefined;
  const found = asked ? await codexDaemonsOf(record, asked.pid, keptDaemons) : undefined;
  const ended = asked ? await endSpawned(effects.run, record, asked) : undefined;
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
    member: {
      label,
      outcome: ended ? "down" : "not-running",
      ...(ended ? { quit: ended.quit } : {}),
      kept,
    },
    ...(found && record.engine === "codex" ? { found } : {}),
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
