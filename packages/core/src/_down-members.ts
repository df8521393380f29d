// A declared member that is down keeps its place on the team: its label is kept for it (nobody
// else joins under it while the team file names it) and mail to it waits in its mailbox, under the
// member id it had, for when it comes back. A member is down when the team file declares its label
// and its spawn record says `down` took it off; a member `up` is starting again (its record
// rewritten, not down) or one the team file no longer names keeps nothing.

/** A label kept for a member that is down, and the mailbox its mail waits in. */
export type DownMember = {
  label: string;
  /** The member id its mail is kept under: the one it had when it went down. */
  id: string;
  /** When it went down. */
  since: string;
};

/** What the rule reads of a spawn record (`@muster/tmux`'s SpawnRecord has these fields). */
type Record = {
  label: string;
  engine: string;
  session?: string | undefined;
  down?: string | undefined;
  member?: string | undefined;
};

/**
 * The member id a down member's mail waits under: the id `down` recorded, else the one its engine
 * session gives (a pi member is its session, a Codex member its thread); undefined when neither
 * is known (a Claude Code member whose id was not recorded), and then nothing is kept for it.
 */
function mailboxOf(record: Record): string | undefined {
  if (record.member !== undefined) return record.member;
  if (record.session === undefined) return undefined;
  if (record.engine === "pi") return record.session;
  if (record.engine === "codex") return `codex-${record.session}`;
  return undefined;
}

/** The declared members that are down: each label the team file names whose record says down. */
export function downMembers(
  declared: readonly { label: string }[],
  records: readonly Record[],
): DownMember[] {
  const named = new Set(declared.map((member) => member.label.toLowerCase()));
  const down: DownMember[] = [];
  for (const record of records) {
    if (record.down === undefined || !named.has(record.label.toLowerCase())) continue;
    const id = mailboxOf(record);
    if (id !== undefined) down.push({ label: record.label.toLowerCase(), id, since: record.down });
  }
  return down;
}

/** What a send to a down member tells the sender, after its label. */
export const DOWN_WORDS = "is down; it will see this when it comes back";
