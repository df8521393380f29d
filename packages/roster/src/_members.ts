// Reading the members: one record, or every record with its state and whether it holds its label.
// A file that cannot be read is a named warning, never fatal; a roster whose folders cannot be
// listed is `unknown`, never an empty team.
import { listClaims } from "./_claim.js";
import { errorText, isTempName, listFolder, readIfPresent } from "./_fs.js";
import { believedBeat, type MemberState, memberState } from "./_liveness.js";
import { parseRecord, type SessionRecord } from "./_record.js";
import type { Team } from "./_team.js";
import { labelKey } from "./_validate.js";

export type Member = SessionRecord & MemberState & { holdsLabel: boolean; heartbeatAgeMs: number };

export type TeamRead =
  | { ok: true; members: Member[]; warnings: string[] }
  | { ok: false; state: "unknown"; error: string };

/** When a record file was last written (its heartbeat, when the one inside is not believed). */
export async function recordTime(team: Team, id: string, now: number): Promise<number> {
  return (await team.fs.lstat(team.paths.recordFile(id)).catch(() => undefined))?.mtimeMs ?? now;
}

/** A session's record, or undefined when absent or not a record of that id. */
export async function loadRecord(team: Team, id: string): Promise<SessionRecord | undefined> {
  const text = await readIfPresent(team.fs, team.paths.recordFile(id)).catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = parseRecord(text);
  return parsed.ok && parsed.value.id === id ? parsed.value : undefined;
}

/** Every record with its state, and the files that could not be read, named. */
export async function readTeam(team: Team, options: { all?: boolean } = {}): Promise<TeamRead> {
  let names: string[];
  let labels: Awaited<ReturnType<typeof listClaims>>;
  try {
    names = await listFolder(team.fs, team.paths.sessions);
    labels = await listClaims(team, "labels");
  } catch (error) {
    return {
      ok: false,
      state: "unknown",
      error: `cannot read the team folder ${team.paths.dir}: ${errorText(error)}`,
    };
  }
  const now = team.clock();
  const warnings = [...labels.warnings];
  const holders = new Map(labels.claims.map((claim) => [labelKey(claim.key), claim.holder]));
  const loaded = await Promise.all(
    names.filter((name) => !isTempName(name)).map((name) => loadMember(team, name, now, holders)),
  );
  const members: Member[] = [];
  for (const entry of loaded) {
    if ("warning" in entry) warnings.push(entry.warning);
    else if (entry.member && (entry.member.state !== "expired" || options.all))
      members.push(entry.member);
  }
  members.sort(
    (left, right) => left.label.localeCompare(right.label) || left.id.localeCompare(right.id),
  );
  return { ok: true, members, warnings };
}

async function loadMember(
  team: Team,
  name: string,
  now: number,
  holders: Map<string, string>,
): Promise<{ member?: Member | undefined } | { warning: string }> {
  const where = `sessions/${name}`;
  if (!name.endsWith(".json")) return { warning: `${where} is not a session record; skipped` };
  let text: string | undefined;
  try {
    text = await readIfPresent(team.fs, `${team.paths.sessions}/${name}`);
  } catch (error) {
    return { warning: `${where} cannot be read (${errorText(error)}); skipped` };
  }
  if (text === undefined) return {}; // left or pruned since the listing
  const parsed = parseRecord(text);
  if (!parsed.ok || `${parsed.value.id}.json` !== name) {
    return {
      warning: `${where} ${parsed.ok ? "names another session id" : parsed.error}; skipped`,
    };
  }
  const record = parsed.value;
  const fileTime = () => recordTime(team, record.id, now);
  const state = await memberState(record, now, team.policy, team.processes, fileTime);
  const beat = await believedBeat(record.heartbeatAt, now, fileTime);
  return {
    member: {
      ...record,
      ...state,
      holdsLabel: holders.get(labelKey(record.label)) === record.id,
      heartbeatAgeMs: Math.max(0, now - beat),
    },
  };
}
