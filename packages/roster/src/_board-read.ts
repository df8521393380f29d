// Reading the board: every card file under board/ (a file that does not parse is a named warning,
// never a card), the lead, and the team as the board's rules read it. A board whose folder cannot
// be listed is `unknown`, never an empty board.
import { type CardRecord, isCardId, parseCard, parseLead } from "./_card-file.js";
import { errorText, isTempName, listFolder, readIfPresent } from "./_fs.js";
import { memberState } from "./_liveness.js";
import { readTeam } from "./_members.js";
import { parseRecord } from "./_record.js";
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

const CARD_FILE = /^(c[1-9][0-9]{0,8})\.json$/;

/** The id a card file name gives, or undefined when the name is not a card's. */
export function cardIdOf(name: string): string | undefined {
  const id = CARD_FILE.exec(name)?.[1];
  return id !== undefined && isCardId(id) ? id : undefined;
}

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

/** Read every card, the lead and the team. Throws only when the board folder cannot be listed. */
export async function readSnapshot(team: Team): Promise<BoardSnapshot> {
  const folder = team.paths.board;
  const names = await listFolder(team.fs, folder);
  const warnings: string[] = [];
  const cards = new Map<string, CardRecord>();
  // Read concurrently: a board of 1,000 cards is 1,000 small reads.
  const [texts, lead, members] = await Promise.all([
    Promise.all(
      names
        .filter((name) => !isTempName(name) && name !== "lead.json")
        .map((name) =>
          readIfPresent(team.fs, `${folder}/${name}`).then(
            (text) => ({ name, text, error: undefined }),
            (error: unknown) => ({ name, text: undefined, error: errorText(error) }),
          ),
        ),
    ),
    readLead(team, warnings),
    readMembers(team),
  ]);
  for (const { name, text, error } of texts) {
    const id = cardIdOf(name);
    if (id === undefined) {
      warnings.push(`board/${name} is not a card file; skipped`);
      continue;
    }
    if (error !== undefined) warnings.push(`board/${name} cannot be read (${error}); skipped`);
    if (text === undefined) continue;
    const parsed = parseCard(text, id);
    if (parsed.ok) cards.set(id, parsed.value);
    else warnings.push(`board/${name} ${parsed.error}; skipped`);
  }
  return { cards, lead, members, at: iso(team.clock()), warnings };
}

/** One card, or undefined when it is not there or does not parse. */
export async function readCard(team: Team, id: string): Promise<CardRecord | undefined> {
  const text = await readIfPresent(team.fs, team.paths.cardFile(id)).catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = parseCard(text, id);
  return parsed.ok ? parsed.value : undefined;
}

export async function readLead(team: Team, warnings: string[]): Promise<string | undefined> {
  let text: string | undefined;
  try {
    text = await readIfPresent(team.fs, team.paths.leadFile);
  } catch (error) {
    warnings.push(`board/lead.json cannot be read (${errorText(error)}); no lead`);
    return undefined;
  }
  if (text === undefined) return undefined;
  const parsed = parseLead(text);
  if (parsed.ok) return parsed.value.lead;
  warnings.push(`board/lead.json ${parsed.error}; no lead`);
  return undefined;
}

/** The team as far as one session goes: its record's state, for judging a claim it holds. */
export async function readHolder(team: Team, id: string): Promise<BoardMembersView> {
  if (!validateId(id).ok) return { members: [], unreadable: [] };
  let text: string | undefined;
  try {
    text = await readIfPresent(team.fs, team.paths.recordFile(id));
  } catch {
    return "unknown";
  }
  if (text === undefined) return { members: [], unreadable: [] };
  const parsed = parseRecord(text);
  if (!parsed.ok || parsed.value.id !== id) return { members: [], unreadable: [id] };
  const state = await memberState(parsed.value, team.clock(), team.policy, team.processes);
  return {
    members: [{ id, label: parsed.value.label, state: state.state, reason: state.reason }],
    unreadable: [],
  };
}

const UNREADABLE_RECORD = /^sessions\/([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.json /;

/** Every record, expired ones too, and the ids whose records are there but cannot be read. */
export async function readMembers(team: Team): Promise<BoardMembersView> {
  const read = await readTeam(team, { all: true });
  if (!read.ok) return "unknown";
  const unreadable: string[] = [];
  for (const warning of read.warnings) {
    const id = UNREADABLE_RECORD.exec(warning)?.[1];
    if (id !== undefined) unreadable.push(id);
  }
  return {
    members: read.members.map((member) => ({
      id: member.id,
      label: member.label,
      state: member.state,
      reason: member.reason,
      holdsLabel: member.holdsLabel,
    })),
    unreadable,
  };
}
