// Reading the members: one record, or every record with its state and whether it holds its label.
// An entry that cannot be read is a named warning and an `unknown` member, never fatal; a roster
// whose spaces cannot be listed is `unknown`, never an empty team.
import { listClaims } from "./_claim-release.js";
import {
  askedOnce,
  believedBeat,
  type MemberState,
  memberState,
  type ProcessFacts,
} from "./_liveness.js";
import { parseRecord, type SessionRecord } from "./_record.js";
import type { Listing, Stored } from "./_store.js";
import { cannot, type Team } from "./_team.js";
import { compareText } from "./_text-order.js";
import { labelKey, validateId } from "./_validate.js";

export type Member = SessionRecord & MemberState & { holdsLabel: boolean; heartbeatAgeMs: number };

/**
 * A session whose record is there but cannot be read (a newer muster's version, a truncated file):
 * nothing is known of it, so it is `unknown` and its claims stand, until its file is older than
 * the TTL (`expired`: its claims are free, and prune moves the file to quarantine).
 */
export type UnreadableMember = { id: string; state: "unknown" | "expired" };

export type TeamRead =
  | { ok: true; members: Member[]; warnings: string[]; unreadable: UnreadableMember[] }
  | { ok: false; state: "unknown"; error: string };

/** A holder as a claim's judge sees it: a member, nobody, or a record nobody here can read. */
export type Holder =
  | { found: "member"; record: SessionRecord; state: MemberState }
  | { found: "none" }
  | { found: "unreadable"; state: UnreadableMember["state"] };

/** When a record was last written (its heartbeat, when the one inside is not believed). */
export async function recordTime(team: Team, id: string, now: number): Promise<number> {
  return (await team.store.writtenAt("sessions", id).catch(() => undefined)) ?? now;
}

/** A session's record, or undefined when absent or not a record of that id. */
export async function loadRecord(team: Team, id: string): Promise<SessionRecord | undefined> {
  return (await loadRecordEntry(team, id))?.record;
}

/** A session's record with the version a conditional write compares. */
export async function loadRecordEntry(
  team: Team,
  id: string,
): Promise<{ record: SessionRecord; version: string } | undefined> {
  return readRecordEntry(team, id).catch(() => undefined);
}

/**
 * `loadRecordEntry`, but a store that cannot be read (a stalled server) throws: for a member's own
 * leave and heartbeat, where "not on the team" is a fact only an answer can give.
 */
export async function readRecordEntry(
  team: Team,
  id: string,
): Promise<{ record: SessionRecord; version: string } | undefined> {
  const stored = await team.store.get("sessions", id);
  if (stored === undefined) return undefined;
  const parsed = parseRecord(stored.text);
  return parsed.ok && parsed.value.id === id
    ? { record: parsed.value, version: stored.version }
    : undefined;
}

/** An unreadable record's state: unknown while it is younger than the TTL, then expired. */
export async function unreadableState(
  team: Team,
  id: string,
  now: number,
): Promise<UnreadableMember["state"]> {
  const written = await team.store.writtenAt("sessions", id).catch(() => undefined);
  return written !== undefined && now - Math.min(written, now) > team.policy.ttlMs
    ? "expired"
    : "unknown";
}

/** The holder of a claim, judged now: the one reading every claim space shares. */
export async function judgeHolder(team: Team, id: string, now: number): Promise<Holder> {
  let stored: Stored | undefined;
  try {
    stored = await team.store.get("sessions", id);
  } catch {
    return { found: "unreadable", state: await unreadableState(team, id, now) };
  }
  if (stored === undefined) return { found: "none" };
  const parsed = parseRecord(stored.text);
  if (!parsed.ok || parsed.value.id !== id)
    return { found: "unreadable", state: await unreadableState(team, id, now) };
  const record = parsed.value;
  const fileTime = () => recordTime(team, id, now);
  return {
    found: "member",
    record,
    state: await memberState(record, now, team.policy, team.processes, fileTime),
  };
}

/** Every record with its state, and the entries that could not be read, named. */
export async function readTeam(team: Team, options: { all?: boolean } = {}): Promise<TeamRead> {
  let listing: Listing;
  let labels: Awaited<ReturnType<typeof listClaims>>;
  try {
    [listing, labels] = await Promise.all([
      team.store.list("sessions"),
      listClaims(team, "labels"),
    ]);
  } catch (error) {
    return { ok: false, state: "unknown", error: cannot(team, "read", error) };
  }
  const now = team.clock();
  const processes = askedOnce(team.processes);
  const warnings = [...labels.warnings];
  const holders = new Map(labels.claims.map((claim) => [labelKey(claim.key), claim.holder]));
  const members: Member[] = [];
  const unreadable: UnreadableMember[] = [];
  for (const name of listing.strays)
    warnings.push(`sessions/${name} is not a session record; skipped`);
  const unknown = async (key: string, name: string, warning: string) => {
    warnings.push(`sessions/${name} ${warning}; skipped`);
    if (validateId(key).ok)
      unreadable.push({ id: key, state: await unreadableState(team, key, now) });
  };
  for (const entry of listing.unreadable)
    await unknown(entry.key, entry.name, `cannot be read (${entry.error})`);
  const loaded = await Promise.all(
    listing.entries.map(async (entry) => {
      const parsed = parseRecord(entry.stored.text);
      if (!parsed.ok || parsed.value.id !== entry.key) {
        await unknown(entry.key, entry.name, parsed.ok ? "names another session id" : parsed.error);
        return undefined;
      }
      return memberOf(team, parsed.value, { now, holders, processes });
    }),
  );
  for (const member of loaded)
    if (member && (member.state !== "expired" || options.all)) members.push(member);
  members.sort(
    (left, right) => compareText(left.label, right.label) || compareText(left.id, right.id),
  );
  return { ok: true, members, warnings, unreadable };
}

/** A record as a member, judged now; `holders`: each label's claim holder that is known (by key). */
export async function memberOf(
  team: Team,
  record: SessionRecord,
  read: { now: number; holders: Map<string, string>; processes: ProcessFacts },
): Promise<Member> {
  const { now, holders } = read;
  const fileTime = () => recordTime(team, record.id, now);
  const state = await memberState(record, now, team.policy, read.processes, fileTime);
  const beat = await believedBeat(record.heartbeatAt, now, fileTime);
  return {
    ...record,
    ...state,
    holdsLabel: holders.get(labelKey(record.label)) === record.id,
    heartbeatAgeMs: Math.max(0, now - beat),
  };
}
