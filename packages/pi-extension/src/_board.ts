// The task board inside pi, as its tools (_board-tools.ts) and `/team board` (_board-commands.ts)
// use it. Rules are core's, files the roster's, the wiring @muster/wiring's; this file only turns
// answers into text for the model and the user. A claim by a session not on the team joins first
// (asked once), and so do an added card and a question; a refused join is the refusal, with the
// join's own line.
import {
  type BoardActor,
  boardFailureLine,
  type CardFilter,
  joinFailureLine,
  type ListedCard,
  listCards,
} from "@muster/core";
import {
  addCard,
  askAboutCard,
  type BoardFailure,
  changeCard,
  memberOf,
  readBoard,
  setLead,
  type TeamBoard,
  teamBoard,
} from "@muster/wiring";
import type { TeamSession } from "./_team.js";

const line = (card: ListedCard) => {
  const state =
    card.state === "held"
      ? `held by ${card.owner?.label ?? "?"}`
      : card.state === "open" && card.blockers.length > 0
        ? `blocked by ${card.blockers.join(", ")}`
        : card.state;
  return `${card.id} [${state}] ${card.title}`;
};

const failed = (verb: string, failure: BoardFailure) => `Not ${verb}: ${boardFailureLine(failure)}`;

/** The board of this session's team, and this session as a member (joined first when asked). */
async function seat(
  session: TeamSession | undefined,
  join: boolean,
): Promise<{ board: TeamBoard; me: BoardActor | undefined } | string> {
  if (!session?.roster) return "muster has no team folder here.";
  const standing = join ? await session.ensureJoined() : session.standing;
  if (join && standing && !standing.ok) return joinFailureLine(standing);
  const board = teamBoard(session.roster);
  const me = standing?.ok ? { label: standing.label, id: session.options.id } : undefined;
  return { board, me };
}

type Session = () => TeamSession | undefined;

/** The board's doors for this session (found anew at each call): one line back from each. */
export function createBoard(session: Session) {
  return {
    cards: (filter?: CardFilter) => cards(session, filter),
    change: (kind: CardChange, card: string, words?: ChangeWords) =>
      change(session, kind, card, words),
    ask: (card: string, question: string) => ask(session, card, question),
    add: (title: string | undefined, more?: AddedWith) => add(session, title, more),
    lead: (label: string) => lead(session, label),
    mine: () => mine(session),
  };
}

type CardChange = "claim" | "done" | "drop" | "handoff";
type ChangeWords = { note?: string; to?: string; message?: string };
type AddedWith = { body?: string | undefined; after?: readonly string[] | undefined };

/** `team_cards`: the cards a filter keeps, one line each, the lead first. */
async function cards(session: Session, filter: CardFilter = {}): Promise<string> {
  const where = await seat(session(), false);
  if (typeof where === "string") return where;
  const read = await readBoard(where.board, session()?.options.id ?? "pi");
  if (!read.ok) return `The board cannot be read: ${read.error}.`;
  const listed = listCards(read.board.cards, filter);
  const lead = read.board.lead ? `Lead: ${read.board.lead}.` : "No lead.";
  return [lead, ...(listed.length > 0 ? listed.map(line) : ["No cards here."])].join("\n");
}

/** Claim, finish, drop or hand off a card; one line back. */
async function change(
  session: Session,
  kind: CardChange,
  card: string,
  words: ChangeWords = {},
): Promise<string> {
  const where = await seat(session(), kind === "claim");
  if (typeof where === "string") return `Not done: ${where}`;
  if (!where.me) return "Not done: this session is not on the team, so it holds no card.";
  const request =
    kind === "claim"
      ? { kind, card }
      : kind === "done"
        ? { kind, card, note: words.note }
        : kind === "drop"
          ? { kind, card, reason: words.note ?? "" }
          : { kind, card, to: words.to ?? "", message: words.message };
  const answer = await changeCard(where.board, where.me, request);
  if (!answer.ok)
    return failed(
      { claim: "claimed", done: "finished", drop: "dropped", handoff: "handed off" }[kind],
      answer,
    );
  const { card: written, changed } = answer.decision;
  const said = {
    claim: changed ? `Claimed ${written.id}` : `You already hold ${written.id}`,
    done: `Finished ${written.id}; the lead is told`,
    drop: `Dropped ${written.id} back to open`,
    handoff: `Handed ${written.id} to ${written.owner?.label ?? "?"}; they have mail about it`,
  }[kind];
  return `${said}: ${written.title}${answer.warnings.length > 0 ? ` (${answer.warnings.join("; ")})` : ""}`;
}

/** Ask about a card: mail to its holder, else its creator; one line back. */
async function ask(session: Session, card: string, question: string): Promise<string> {
  const where = await seat(session(), true);
  if (typeof where === "string") return `Not asked: ${where}`;
  if (!where.me) return "Not asked: this session is not on the team.";
  const answer = await askAboutCard(where.board, where.me, card, question);
  if (!answer.ok) return failed("asked", answer);
  const { card: asked, to } = answer.decision;
  return `Asked ${to?.label ?? "?"} about ${asked.id}; the answer comes as team mail.${answer.warnings.length > 0 ? ` (${answer.warnings.join("; ")})` : ""}`;
}

/**
 * Add a card, with the cards that must be done first: one line back; undefined when there is no
 * title (the caller shows the usage).
 */
async function add(
  session: Session,
  title: string | undefined,
  more: AddedWith = {},
): Promise<string | undefined> {
  const where = await seat(session(), true);
  if (typeof where === "string") return `Not added: ${where}`;
  if (!where.me || title === undefined) return undefined;
  const added = await addCard(where.board, where.me, {
    title,
    body: more.body,
    deps: [...(more.after ?? [])],
  });
  if (!added.ok) return failed("added", added);
  const { card } = added.decision;
  const after = card.deps.length > 0 ? ` (after ${card.deps.join(", ")})` : "";
  return `Added ${card.id}: ${card.title}${after}`;
}

/** Name the board's lead; undefined from a session not on the team (the caller shows the usage). */
async function lead(session: Session, label: string): Promise<string | undefined> {
  const where = await seat(session(), false);
  if (typeof where === "string" || !where.me) return undefined;
  const set = await setLead(where.board, where.me, label);
  return set.ok
    ? set.lead
      ? `The lead is ${set.lead}.`
      : "The board has no lead now."
    : failed("set", set);
}

/** The card this session holds, for the footer: `c4`, `c4 +1`, or undefined. */
async function mine(session: Session): Promise<string | undefined> {
  const current = session();
  if (!current?.roster) return undefined;
  const read = await teamBoard(current.roster).board.read();
  if (!read.ok) return undefined;
  const me = memberOf(read.board, current.options.id);
  const held = [...read.board.cards.values()].filter(
    (card) => card.state === "held" && card.owner?.id === me?.id,
  );
  const first = held[0];
  return first ? (held.length > 1 ? `${first.id} +${held.length - 1}` : first.id) : undefined;
}

export type Board = ReturnType<typeof createBoard>;
