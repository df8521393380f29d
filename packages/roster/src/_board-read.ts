// Reading the board: every card file under board/ (a file that does not parse is a named warning,
// never a card), the lead, and the team as the board's rules read it. A board whose folder cannot
// be listed is `unknown`, never an empty board.
import { type CardRecord, isCardId, parseCard, parseLead } from "./_card-file.js";
import { errorText } from "./_error.js";
import { judgeHolder, readTeam, type UnreadableMember } from "./_members.js";
import type { Stored } from "./_store.js";
import { iso, type Team } from "./_team.js";
import { validateId } from "./_validate.js";

/** A member as the board's rules read it (core's `BoardMember`). */
export type BoardMemberView = {
  id: string;
  label: string;
  state: "live" | "gone" | "expired";
  reason?: string | undefined;
  holdsLabel?: boolean | undefined;
};

/** The team as the board's rules read it (core's `BoardMembers`). */
export type BoardMembersView = { members: BoardMemberView[]; unreadable: string[] } | "unknown";

/** The board as read at one moment: what a rule decides over. */
export type BoardSnapshot = {
  cards: Map<string, CardRecord>;
  lead: string | undefined;
  members: BoardMembersView;
  /** The time of the read, ISO: a change decided over this snapshot is dated with it. */
  at: string;
  warnings: string[];
};

/**
 * The board around one card: that card and the cards it depends on (what a change to it is decided
 * over), the lead and the team. A 32-way race on a board of 1,000 cards reads 2 cards, not 1,000.
 */
export async function readAround(team: Team, id: string): Promise<BoardSnapshot> {
  const [card, lead, members] = await Promise.all([
    readCard(team, id),
    readLead(team, []),
    readMembers(team),
  ]);
  const cards = new Map<string, CardRecord>();
  if (card) {
    cards.set(id, card);
    const deps = await Promise.all(card.deps.map((dep) => readCard(team, dep)));
    for (const dep of deps) if (dep) cards.set(dep.id, dep);
  }
  return { cards, lead, members, at: iso(team.clock()), warnings: [] };
}

/** Read every card, the lead and the team. Throws only when the board cannot be listed. */
export async function readSnapshot(team: Team): Promise<BoardSnapshot> {
  return (await readBoardWhole(team)).board;
}

/** The board and every card id taken there, by a card or by an entry that does not parse. */
export async function readBoardWhole(
  team: Team,
): Promise<{ board: BoardSnapshot; taken: string[] }> {
  const warnings: string[] = [];
  const cards = new Map<string, CardRecord>();
  const [listing, lead, members] = await Promise.all([
    team.store.list("board"),
    readLead(team, warnings),
    readMembers(team),
  ]);
  for (const name of listing.strays) warnings.push(`board/${name} is not a card file; skipped`);
  const taken: string[] = [];
  for (const entry of listing.unreadable) {
    if (entry.key === "lead") continue;
    if (isCardId(entry.key)) taken.push(entry.key);
    warnings.push(
      isCardId(entry.key)
        ? `board/${entry.name} cannot be read (${entry.error}); skipped`
        : `board/${entry.name} is not a card file; skipped`,
    );
  }
  for (const entry of listing.entries) {
    if (entry.key === "lead") continue;
    if (!isCardId(entry.key)) {
      warnings.push(`board/${entry.name} is not a card file; skipped`);
      continue;
    }
    taken.push(entry.key);
    const parsed = parseCard(entry.stored.text, entry.key);
    if (parsed.ok) cards.set(entry.key, parsed.value);
    else warnings.push(`board/${entry.name} ${parsed.error}; skipped`);
  }
  return { board: { cards, lead, members, at: iso(team.clock()), warnings }, taken };
}

/** One card, or undefined when it is not there or does not parse. */
export async function readCard(team: Team, id: string): Promise<CardRecord | undefined> {
  const stored = await team.store.get("board", id).catch(() => undefined);
  if (stored === undefined) return undefined;
  const parsed = parseCard(stored.text, id);
  return parsed.ok ? parsed.value : undefined;
}

export async function readLead(team: Team, warnings: string[]): Promise<string | undefined> {
  let stored: Stored | undefined;
  try {
    stored = await team.store.get("board", "lead");
  } catch (error) {
    warnings.push(`board/lead.json cannot be read (${errorText(error)}); no lead`);
    return undefined;
  }
  if (stored === undefined) return undefined;
  const parsed = parseLead(stored.text);
  if (parsed.ok) return parsed.value.lead;
  warnings.push(`board/lead.json ${parsed.error}; no lead`);
  return undefined;
}

/** The team as far as one session goes: its record's state, for judging a claim it holds. */
export async function readHolder(team: Team, id: string): Promise<BoardMembersView> {
  if (!validateId(id).ok) return { members: [], unreadable: [] };
  const judged = await judgeHolder(team, id, team.clock());
  if (judged.found === "none") return { members: [], unreadable: [] };
  if (judged.found === "unreadable") return unreadableView([{ id, state: judged.state }]);
  const { record, state } = judged;
  return {
    members: [{ id, label: record.label, state: state.state, reason: state.reason }],
    unreadable: [],
  };
}

/**
 * Records nobody here can read: unknown (`unreadable`: their cards stay held) until their file is
 * older than the TTL, then expired members (their cards are released).
 */
function unreadableView(
  unreadable: readonly UnreadableMember[],
  members: BoardMemberView[] = [],
): BoardMembersView {
  const expired = unreadable.filter((entry) => entry.state === "expired");
  return {
    members: [
      ...members,
      ...expired.map((entry) => ({
        id: entry.id,
        label: entry.id,
        state: "expired" as const,
        reason: "past-ttl",
      })),
    ],
    unreadable: unreadable.filter((entry) => entry.state === "unknown").map((entry) => entry.id),
  };
}

/** Every record, expired ones too, and the ids whose records are there but cannot be read. */
export async function readMembers(team: Team): Promise<BoardMembersView> {
  const read = await readTeam(team, { all: true });
  if (!read.ok) return "unknown";
  const members = read.members.map((member) => ({
    id: member.id,
    label: member.label,
    state: member.state,
    reason: member.reason,
    holdsLabel: member.holdsLabel,
  }));
  return unreadableView(read.unreadable, members);
}
