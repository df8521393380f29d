// Who is on the team, as the board reads it, and "never held by the dead": a card whose owner is
// proven dead, expired or gone from the team is open again with the reason; a card whose owner is
// merely unknown (the roster cannot be read, the owner's record cannot be read, a heartbeat is late
// but the process is not proven dead) stays held.
import { appendHistory, type Card, sameLabel } from "./_board-card.js";
import { type BoardNotice, leadNotices } from "./_board-notice.js";

/** A member as the board reads it: the roster's entries meet this shape structurally. */
export type BoardMember = {
  id: string;
  label: string;
  state: "live" | "gone" | "expired";
  /** The roster's word for the state: `process-dead`, `heartbeat-stale`, `past-ttl`, … */
  reason?: string | undefined;
  /** False when the record names a label another session now holds. */
  holdsLabel?: boolean | undefined;
};

/**
 * The team as the board sees it: every record (expired ones too, so an expired owner is told from
 * one that left) and the session ids whose records exist but could not be read. `unknown` when the
 * roster could not be read at all.
 */
export type BoardMembers =
  | { members: readonly BoardMember[]; unreadable?: readonly string[] | undefined }
  | "unknown";

/** The live member holding `label`, if any. */
export function liveHolder(members: BoardMembers, label: string): BoardMember | undefined {
  if (members === "unknown") return undefined;
  return members.members.find(
    (member) =>
      member.state === "live" && member.holdsLabel !== false && sameLabel(member.label, label),
  );
}

/** The labels live members hold: what a mistyped label may have meant. */
export function liveLabels(members: BoardMembers): string[] {
  if (members === "unknown") return [];
  return members.members
    .filter((member) => member.state === "live" && member.holdsLabel !== false)
    .map((member) => member.label);
}

/** The member with session id `id`, live, if any. */
export function liveMember(members: BoardMembers, id: string): BoardMember | undefined {
  if (members === "unknown") return undefined;
  return members.members.find((member) => member.id === id && member.state === "live");
}

export type OwnerVerdict =
  | { keep: true; reason: "live" | "no-evidence" | "not-held" }
  | { keep: false; reason: "owner-dead" | "owner-expired" | "owner-left"; note: string };

/** Whether the owner of `card` still holds it. Only proof releases; no word keeps it held. */
export function ownerVerdict(card: Card, members: BoardMembers): OwnerVerdict {
  if (card.state !== "held" || !card.owner) return { keep: true, reason: "not-held" };
  if (members === "unknown") return { keep: true, reason: "no-evidence" };
  const owner = card.owner;
  const record = members.members.find((member) => member.id === owner.id);
  if (!record) {
    if (members.unreadable?.includes(owner.id)) return { keep: true, reason: "no-evidence" };
    return { keep: false, reason: "owner-left", note: `${owner.label} is no longer on the team` };
  }
  if (record.state === "expired") {
    return {
      keep: false,
      reason: "owner-expired",
      note: `${owner.label} stopped answering and expired`,
    };
  }
  if (record.state === "gone" && record.reason === "process-dead") {
    return { keep: false, reason: "owner-dead", note: `${owner.label}'s process died` };
  }
  return { keep: true, reason: record.state === "live" ? "live" : "no-evidence" };
}

/** A card released from a dead owner: open again, the reason in its history, and the lead told. */
export function releaseCard(
  card: Card,
  verdict: Extract<OwnerVerdict, { keep: false }>,
  lead: string | undefined,
  at: string,
): { card: Card; notices: BoardNotice[] } {
  const owner = card.owner?.label ?? "?";
  const released: Card = {
    ...card,
    state: "open",
    owner: undefined,
    history: appendHistory(card.history, { at, event: "released", by: owner, note: verdict.note }),
  };
  return {
    card: released,
    notices: leadNotices(lead, undefined, {
      kind: "released",
      card: card.id,
      body: `${card.id} "${card.title}" is open again: ${verdict.note}.`,
    }),
  };
}
