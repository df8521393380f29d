// The roster of one team folder: open (and refuse unsafe folders), read with liveness, join with an
// exclusive case-insensitive label claim, heartbeat, leave and prune. Mail lives in `_mail.ts`.
// Layout: sessions/<id>.json, labels/<label key>.json, locks/<label key>.lock, mail/<id>/…,
// quarantine/. Every write is whole (temp + rename) or exclusive (temp + link).
import {
  createExclusive,
  ensureFolders,
  errorCode,
  errorText,
  FOLDER_MODE,
  isTempName,
  joinPath,
  listIfPresent,
  maildirFolders,
  type RosterFs,
  readIfPresent,
  tempBeside,
  uniqueName,
  unlinkIfPresent,
  writeWhole,
} from "./_fs.js";
import {
  ackMail,
  type Inbox,
  type Receipt,
  receiveMail,
  type SendInput,
  sendMail,
  unreadCount,
} from "./_mail.js";
import {
  DEFAULT_POLICY,
  type LabelClaim,
  type Liveness,
  type MemberState,
  memberState,
  type ProcessFacts,
  parseClaim,
  parseRecord,
  type RosterPolicy,
  type Seat,
  type SessionRecord,
  type Watching,
} from "./_record.js";
import { labelKey, validateId, validateLabel } from "./_validate.js";

/** A claim with no record behind it is a join in progress for this long, then an orphan. */
export const CLAIM_GRACE_MS = 10_000;
/** A reclaim lock older than this was left by a crash and may be broken. */
export const LOCK_STALE_MS = 5_000;

export type RosterOptions = {
  dir: string;
  fs: RosterFs;
  /** Milliseconds since the epoch. */
  clock: () => number;
  processes: ProcessFacts;
  policy?: Partial<RosterPolicy> | undefined;
};

export type Member = SessionRecord & MemberState & { holdsLabel: boolean; heartbeatAgeMs: number };

export type TeamRead =
  | { ok: true; members: Member[]; warnings: string[] }
  | { ok: false; state: "unknown"; error: string };

export type JoinInput = {
  id: string;
  label: string;
  agent: string;
  pid: number;
  pidStart?: string | undefined;
  cwd?: string | undefined;
  seat?: Seat | undefined;
  watching: Watching;
  liveness: Liveness;
};

export type JoinRefusalReason =
  | "bad-label"
  | "bad-id"
  | "bad-input"
  | "label-held"
  | "label-held-gone"
  | "unwritable";

export type JoinResult =
  | {
      ok: true;
      label: string;
      watching: Watching;
      renamedFrom?: string | undefined;
      reclaimedFrom?: string | undefined;
    }
  | {
      ok: false;
      reason: JoinRefusalReason;
      error: string;
      holder?: string | undefined;
      holderId?: string | undefined;
    };

export type HeartbeatResult =
  | { ok: true; label: string }
  | { ok: false; reason: "lost" | "bad-id" | "unwritable"; error: string };

export type PruneResult =
  | { ok: true; removed: string[]; cleared: string[]; quarantined: string[]; warnings: string[] }
  | { ok: false; reason: "roster-unknown"; error: string };

export type OpenResult =
  | { ok: true; roster: Roster }
  | { ok: false; reason: "unsafe-folder" | "unwritable"; error: string };

const iso = (ms: number) => new Date(ms).toISOString();

const sameClaim = (left: LabelClaim | "unreadable", right: LabelClaim | "unreadable") =>
  left === "unreadable" || right === "unreadable"
    ? left === right
    : left.id === right.id && left.at === right.at;

function lockTime(text: string): number {
  try {
    return Date.parse((JSON.parse(text) as { at?: string }).at ?? "");
  } catch {
    return Number.NEGATIVE_INFINITY; // a lock that does not parse is stale
  }
}

/** Open (creating where needed) a team folder, refusing one that another user could tamper with. */
export async function openRoster(options: RosterOptions): Promise<OpenResult> {
  const { dir, fs } = options;
  try {
    await fs.mkdir(dir, FOLDER_MODE);
  } catch (error) {
    if (errorCode(error) !== "EEXIST") {
      return {
        ok: false,
        reason: "unwritable",
        error: `cannot create the team folder ${dir}: ${errorText(error)}`,
      };
    }
  }
  let facts: Awaited<ReturnType<RosterFs["stat"]>>;
  try {
    facts = await fs.stat(dir);
  } catch (error) {
    return {
      ok: false,
      reason: "unwritable",
      error: `cannot read the team folder ${dir}: ${errorText(error)}`,
    };
  }
  if (!facts.isDirectory) {
    return {
      ok: false,
      reason: "unsafe-folder",
      error: `the team folder ${dir} is not a folder; remove it or set MUSTER_TEAM_DIR`,
    };
  }
  const ownUid = fs.ownUid?.();
  if (facts.uid !== undefined && ownUid !== undefined && facts.uid !== ownUid) {
    return {
      ok: false,
      reason: "unsafe-folder",
      error: `the team folder ${dir} belongs to uid ${facts.uid}, not you (uid ${ownUid}); use a folder you own (MUSTER_TEAM_DIR)`,
    };
  }
  if (facts.mode !== undefined && (facts.mode & 0o022) !== 0) {
    return {
      ok: false,
      reason: "unsafe-folder",
      error: `the team folder ${dir} is writable by group or others; run chmod 700 ${dir}`,
    };
  }
  try {
    const layout = ["sessions", "labels", "locks", "mail", "quarantine"];
    await ensureFolders(
      fs,
      layout.map((sub) => joinPath(dir, sub)),
    );
  } catch (error) {
    return {
      ok: false,
      reason: "unwritable",
      error: `cannot write the team folder ${dir}: ${errorText(error)}`,
    };
  }
  return { ok: true, roster: new Roster(options) };
}

/** One team folder. Construct through `openRoster`, which checks the folder first. */
export class Roster {
  readonly dir: string;
  readonly fs: RosterFs;
  readonly clock: () => number;
  readonly processes: ProcessFacts;
  readonly policy: RosterPolicy;

  constructor(options: RosterOptions) {
    this.dir = options.dir;
    this.fs = options.fs;
    this.clock = options.clock;
    this.processes = options.processes;
    this.policy = { ...DEFAULT_POLICY, ...options.policy };
  }

  path(...parts: string[]) {
    return joinPath(this.dir, ...parts);
  }
  recordPath(id: string) {
    return this.path("sessions", `${id}.json`);
  }
  claimPath(label: string) {
    return this.path("labels", `${labelKey(label)}.json`);
  }

  /** A session's record, or undefined when absent or unreadable. */
  async loadRecord(id: string): Promise<SessionRecord | undefined> {
    const text = await readIfPresent(this.fs, this.recordPath(id));
    if (text === undefined) return undefined;
    const parsed = parseRecord(text);
    return parsed.ok && parsed.value.id === id ? parsed.value : undefined;
  }

  async loadClaim(label: string): Promise<LabelClaim | "unreadable" | undefined> {
    const text = await readIfPresent(this.fs, this.claimPath(label));
    if (text === undefined) return undefined;
    const parsed = parseClaim(text);
    return parsed.ok ? parsed.value : "unreadable";
  }

  /** Every record with its state, and the files that could not be read, named. */
  async read(options: { all?: boolean } = {}): Promise<TeamRead> {
    let names: string[];
    let claimNames: string[];
    try {
      names = await this.fs.readdir(this.path("sessions"));
      claimNames = await this.fs.readdir(this.path("labels"));
    } catch (error) {
      return {
        ok: false,
        state: "unknown",
        error: `cannot read the team folder ${this.dir}: ${errorText(error)}`,
      };
    }
    const now = this.clock();
    const warnings: string[] = [];
    const holders = new Map<string, string>();
    // Files are read concurrently: a team of 1,000 is 2,000 small reads.
    const claims = await Promise.all(
      claimNames
        .filter((name) => !isTempName(name) && name.endsWith(".json"))
        .map(async (name) => {
          const text = await readIfPresent(this.fs, this.path("labels", name)).catch(
            () => undefined,
          );
          return { name, parsed: text === undefined ? undefined : parseClaim(text) };
        }),
    );
    for (const { name, parsed } of claims) {
      if (parsed?.ok) holders.set(labelKey(parsed.value.label), parsed.value.id);
      else if (parsed) warnings.push(`labels/${name} ${parsed.error}; skipped`);
    }
    const loaded = await Promise.all(
      names.filter((name) => !isTempName(name)).map((name) => this.loadMember(name, now, holders)),
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

  private async loadMember(
    name: string,
    now: number,
    holders: Map<string, string>,
  ): Promise<{ member?: Member | undefined } | { warning: string }> {
    const where = `sessions/${name}`;
    if (!name.endsWith(".json")) return { warning: `${where} is not a session record; skipped` };
    let text: string | undefined;
    try {
      text = await readIfPresent(this.fs, this.path("sessions", name));
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
    const state = await memberState(record, now, this.policy, this.processes);
    return {
      member: {
        ...record,
        ...state,
        holdsLabel: holders.get(labelKey(record.label)) === record.id,
        heartbeatAgeMs: Math.max(0, now - Date.parse(record.heartbeatAt)),
      },
    };
  }

  /** Join under a label, or rename, or refresh: the claim is exclusive and case-insensitive. */
  async join(input: JoinInput): Promise<JoinResult> {
    const id = validateId(input.id);
    if (!id.ok) return { ok: false, reason: "bad-id", error: id.error };
    const label = validateLabel(input.label);
    if (!label.ok) return { ok: false, reason: "bad-label", error: label.error };
    if (
      !Number.isInteger(input.pid) ||
      input.pid <= 0 ||
      typeof input.agent !== "string" ||
      input.agent === ""
    ) {
      return {
        ok: false,
        reason: "bad-input",
        error: "a join needs a positive integer pid and an agent name",
      };
    }
    try {
      const existing = await this.loadRecord(input.id);
      const claimed = await this.claim(input);
      if (!claimed.ok) return claimed;
      const now = this.clock();
      await ensureFolders(this.fs, maildirFolders(this.path("mail", input.id)));
      const record: SessionRecord = {
        v: 1,
        id: input.id,
        label: input.label,
        agent: input.agent,
        cwd: input.cwd,
        pid: input.pid,
        pidStart: input.pidStart,
        seat: input.seat,
        watching: { armed: input.watching.armed, wake: input.watching.wake },
        liveness: input.liveness,
        joinedAt: existing && existing.pid === input.pid ? existing.joinedAt : iso(now),
        heartbeatAt: iso(now),
      };
      await writeWhole(this.fs, this.recordPath(input.id), `${JSON.stringify(record)}\n`, now);
      let renamedFrom: string | undefined;
      if (existing && labelKey(existing.label) !== labelKey(input.label)) {
        await this.releaseClaim(existing.label, input.id);
        renamedFrom = existing.label;
      }
      return {
        ok: true,
        label: input.label,
        watching: record.watching,
        renamedFrom,
        reclaimedFrom: claimed.reclaimedFrom,
      };
    } catch (error) {
      return {
        ok: false,
        reason: "unwritable",
        error: `cannot write the team folder ${this.dir}: ${errorText(error)}`,
      };
    }
  }

  /** Claim `input.label` for `input.id`: exclusive create, or a takeover of a dead holder under a lock. */
  private async claim(
    input: JoinInput,
  ): Promise<
    { ok: true; reclaimedFrom?: string | undefined } | Extract<JoinResult, { ok: false }>
  > {
    const claimPath = this.claimPath(input.label);
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const now = this.clock();
      const text = `${JSON.stringify({ v: 1, id: input.id, label: input.label, at: iso(now), pid: input.pid, pidStart: input.pidStart } satisfies LabelClaim)}\n`;
      if (await createExclusive(this.fs, claimPath, text, now)) return { ok: true };
      const current = await this.loadClaim(input.label);
      if (current === undefined) continue; // released since: try again
      if (current !== "unreadable" && current.id === input.id) {
        if (current.label !== input.label) await writeWhole(this.fs, claimPath, text, now);
        return { ok: true };
      }
      const verdict = await this.claimVerdict(current, now);
      if (verdict.ok === false) return verdict;
      const lock = await this.lock(input.label, input.id, now);
      if (!lock) {
        return {
          ok: false,
          reason: "label-held",
          error: `label "${input.label}" is being taken over by another session right now`,
          holder: current === "unreadable" ? undefined : current.label,
        };
      }
      try {
        // Re-checked under the lock, immediately before the takeover.
        const again = await this.loadClaim(input.label);
        if (again === undefined || !sameClaim(again, current)) continue;
        const recheck = await this.claimVerdict(again, this.clock());
        if (recheck.ok === false) return recheck;
        await writeWhole(this.fs, claimPath, text, now);
        if (again !== "unreadable") {
          const dead = await this.loadRecord(again.id);
          if (dead && labelKey(dead.label) === labelKey(input.label))
            await unlinkIfPresent(this.fs, this.recordPath(again.id));
        }
        return { ok: true, reclaimedFrom: again === "unreadable" ? undefined : again.id };
      } finally {
        await unlinkIfPresent(this.fs, this.path("locks", `${labelKey(input.label)}.lock`)).catch(
          () => undefined,
        );
      }
    }
    return {
      ok: false,
      reason: "label-held",
      error: `label "${input.label}" changed hands while joining; try again`,
    };
  }

  /** May this claim be taken over? Only from a holder proven dead, expired, or never written. */
  private async claimVerdict(
    claim: LabelClaim | "unreadable",
    now: number,
  ): Promise<{ ok: true } | Extract<JoinResult, { ok: false }>> {
    if (claim === "unreadable") return { ok: true };
    const holder = await this.loadRecord(claim.id);
    if (!holder || labelKey(holder.label) !== labelKey(claim.label)) {
      if (now - Date.parse(claim.at) < CLAIM_GRACE_MS) {
        return {
          ok: false,
          reason: "label-held",
          error: `label "${claim.label}" is being claimed by another session right now`,
          holder: claim.label,
          holderId: claim.id,
        };
      }
      return { ok: true };
    }
    const state = await memberState(holder, now, this.policy, this.processes);
    if (state.state === "live") {
      return {
        ok: false,
        reason: "label-held",
        error: `label "${claim.label}" is held by a live ${holder.agent} session (pid ${holder.pid})`,
        holder: claim.label,
        holderId: claim.id,
      };
    }
    if (state.state === "gone" && state.why !== "process-dead") {
      return {
        ok: false,
        reason: "label-held-gone",
        error: `label "${claim.label}" is held by a ${holder.agent} session that stopped answering (last heartbeat ${Math.round((now - Date.parse(holder.heartbeatAt)) / 1000)}s ago)`,
        holder: claim.label,
        holderId: claim.id,
      };
    }
    return { ok: true };
  }

  /** Take the label's reclaim lock, breaking one a crash left behind. False when another holds it. */
  private async lock(label: string, id: string, now: number): Promise<boolean> {
    const lockPath = this.path("locks", `${labelKey(label)}.lock`);
    const text = `${JSON.stringify({ v: 1, id, at: iso(now), nonce: uniqueName(now) })}\n`;
    if (await createExclusive(this.fs, lockPath, text, now)) return true;
    const held = await readIfPresent(this.fs, lockPath);
    if (held === undefined) return createExclusive(this.fs, lockPath, text, now);
    if (!(now - lockTime(held) > LOCK_STALE_MS)) return false;
    // Break a stale lock by moving it aside: only one breaker's rename can succeed.
    const aside = tempBeside(lockPath, now);
    try {
      await this.fs.rename(lockPath, aside);
    } catch {
      return false;
    }
    await unlinkIfPresent(this.fs, aside);
    return createExclusive(this.fs, lockPath, text, now);
  }

  private async releaseClaim(label: string, id: string) {
    const claim = await this.loadClaim(label);
    if (claim !== undefined && claim !== "unreadable" && claim.id === id) {
      await unlinkIfPresent(this.fs, this.claimPath(label));
    }
  }

  /** Refresh a member's record. `lost` when the record is gone or its label was taken over. */
  async heartbeat(id: string): Promise<HeartbeatResult> {
    const valid = validateId(id);
    if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error };
    try {
      const record = await this.loadRecord(id);
      if (!record)
        return {
          ok: false,
          reason: "lost",
          error: `session ${id} is no longer on the team; join again`,
        };
      const claim = await this.loadClaim(record.label);
      if (claim === undefined || claim === "unreadable" || claim.id !== id) {
        return {
          ok: false,
          reason: "lost",
          error: `label "${record.label}" is no longer held by session ${id}; join again`,
        };
      }
      const now = this.clock();
      await writeWhole(
        this.fs,
        this.recordPath(id),
        `${JSON.stringify({ ...record, heartbeatAt: iso(now) })}\n`,
        now,
      );
      return { ok: true, label: record.label };
    } catch (error) {
      return {
        ok: false,
        reason: "unwritable",
        error: `cannot write the team folder ${this.dir}: ${errorText(error)}`,
      };
    }
  }

  /** Release the label and the record. Unread mail stays readable by this id until pruned. */
  async leave(
    id: string,
  ): Promise<
    { ok: true; left: boolean } | { ok: false; reason: "bad-id" | "unwritable"; error: string }
  > {
    const valid = validateId(id);
    if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error };
    try {
      const record = await this.loadRecord(id);
      if (!record) return { ok: true, left: false };
      await this.releaseClaim(record.label, id);
      await unlinkIfPresent(this.fs, this.recordPath(id));
      return { ok: true, left: true };
    } catch (error) {
      return {
        ok: false,
        reason: "unwritable",
        error: `cannot write the team folder ${this.dir}: ${errorText(error)}`,
      };
    }
  }

  /** Send to a label or `all`; refused with nothing written when any check fails. */
  send(input: SendInput): Promise<Receipt> {
    return sendMail(this, input);
  }
  /** New mail for session `id`, oldest first; it stays new until acknowledged. */
  receive(id: string): Promise<Inbox> {
    return receiveMail(this, id);
  }
  ack(id: string, messageIds: readonly string[]) {
    return ackMail(this, id, messageIds);
  }
  unread(id: string): Promise<number> {
    return unreadCount(this, id);
  }

  /**
   * Remove expired records with their claims and mailboxes, orphan claims and mailboxes, and
   * leftovers of interrupted writes. Records that do not parse are moved to quarantine/, named.
   */
  async prune(): Promise<PruneResult> {
    const team = await this.read({ all: true });
    if (!team.ok) return { ok: false, reason: "roster-unknown", error: team.error };
    const now = this.clock();
    const removed: string[] = [];
    const cleared: string[] = [];
    const quarantined: string[] = [];
    const warnings = [...team.warnings];
    const keep = new Set<string>();
    for (const member of team.members) {
      if (member.state !== "expired") {
        keep.add(member.id);
        continue;
      }
      await this.releaseClaim(member.label, member.id);
      await unlinkIfPresent(this.fs, this.recordPath(member.id));
      await this.fs.removeTree(this.path("mail", member.id));
      removed.push(member.id);
    }
    for (const name of await listIfPresent(this.fs, this.path("sessions"))) {
      const file = this.path("sessions", name);
      if (isTempName(name)) {
        if (await this.clearIfOld(file, now, CLAIM_GRACE_MS)) cleared.push(`sessions/${name}`);
        continue;
      }
      const text = await readIfPresent(this.fs, file);
      if (text === undefined) continue;
      const parsed = parseRecord(text);
      if (parsed.ok && `${parsed.value.id}.json` === name) {
        keep.add(parsed.value.id);
        continue;
      }
      await this.fs.rename(file, this.path("quarantine", `${uniqueName(now)}-${name}`));
      quarantined.push(`sessions/${name}`);
    }
    for (const name of await listIfPresent(this.fs, this.path("labels"))) {
      const file = this.path("labels", name);
      if (isTempName(name)) {
        if (await this.clearIfOld(file, now, CLAIM_GRACE_MS)) cleared.push(`labels/${name}`);
        continue;
      }
      const text = await readIfPresent(this.fs, file);
      const claim = text === undefined ? undefined : parseClaim(text);
      if (claim?.ok && keep.has(claim.value.id)) continue;
      if (claim?.ok && now - Date.parse(claim.value.at) < CLAIM_GRACE_MS) continue;
      if (text !== undefined) {
        await unlinkIfPresent(this.fs, file);
        cleared.push(`labels/${name}`);
      }
    }
    for (const name of await listIfPresent(this.fs, this.path("locks"))) {
      if (await this.clearIfOld(this.path("locks", name), now, LOCK_STALE_MS))
        cleared.push(`locks/${name}`);
    }
    for (const id of await listIfPresent(this.fs, this.path("mail"))) {
      const mailbox = this.path("mail", id);
      if (
        !keep.has(id) &&
        (await this.olderThan(mailbox, now, this.policy.ttlMs, ["new", "cur"]))
      ) {
        await this.fs.removeTree(mailbox);
        cleared.push(`mail/${id}`);
        continue;
      }
      for (const name of await listIfPresent(this.fs, `${mailbox}/tmp`)) {
        if (await this.clearIfOld(`${mailbox}/tmp/${name}`, now, CLAIM_GRACE_MS))
          cleared.push(`mail/${id}/tmp/${name}`);
      }
    }
    return { ok: true, removed, cleared, quarantined, warnings };
  }

  private async clearIfOld(file: string, now: number, ms: number): Promise<boolean> {
    return (await this.olderThan(file, now, ms)) && unlinkIfPresent(this.fs, file);
  }

  /** Whether a path (and, for a folder, the named sub-folders) was last changed before `now - ms`. */
  private async olderThan(
    path: string,
    now: number,
    ms: number,
    subfolders: string[] = [],
  ): Promise<boolean> {
    try {
      let newest = (await this.fs.stat(path)).mtimeMs;
      for (const sub of subfolders) {
        const facts = await this.fs.stat(`${path}/${sub}`).catch(() => undefined);
        if (facts) newest = Math.max(newest, facts.mtimeMs);
      }
      return now - newest > ms;
    } catch {
      return false;
    }
  }
}
