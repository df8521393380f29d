// The task board as every composer wires it: the roster's board files driven by core's rules. A
// read first releases the cards of owners proven gone (the lead is told); a change runs core's
// decision under the card's claim and sends the notices it names as mail. No rule is decided here:
// each answer is core's decision or the roster's refusal, as a value.
import {
  type BoardActor,
  type BoardChange,
  type BoardDecision,
  type BoardNotice,
  type BoardRefusal,
  decideChange,
  decideLead,
  errorLine,
  ownerVerdict,
  parseCardId,
  releaseCard,
} from "@muster/core";
import { asIfMember } from "@muster/core/internal";
import type { Board, BoardFileRefusal, BoardSnapshot, Roster } from "@muster/roster";

export type TeamBoard = { roster: Roster; board: Board };

/** A refusal as composers print it: core's, the roster's, or a card id that is not one. */
export type BoardFailure = {
  ok: false;
  /** Core's `BoardRefusalReason`, or the roster's `busy`, `unwritable`, `bad-card`. */
  reason: BoardRefusal["reason"] | BoardFileRefusal["reason"];
  error: string;
  fix: string;
  holder?: string | undefined;
  blockers?: string[] | undefined;
  /** The live label a mistyped one most likely meant. */
  suggestion?: string | undefined;
};

export type BoardOutcome<Ok> = ({ ok: true } & Ok) | BoardFailure;

/** The board of a roster, judged by core's "never held by the dead". */
export const teamBoard = (roster: Roster): TeamBoard => ({
  roster,
  board: roster.board({ ownerVerdict }),
});

/** The release of a card whose owner is proven gone, as core decides it over the board now. */
function releaseDecision(board: BoardSnapshot, id: string) {
  const card = board.cards.get(id);
  const verdict = card ? ownerVerdict(card, board.members) : undefined;
  if (!card || !verdict || verdict.keep) return { ok: false as const };
  const released = releaseCard(card, verdict, board.lead, board.at);
  return { ok: true as const, changed: true, card: released.card, notices: released.notices };
}

/** Send each notice as mail from `from`; those that could not go come back as warnings. */
export async function sendNotices(
  roster: Roster,
  from: string,
  notices: readonly BoardNotice[],
  guest?: string | undefined,
): Promise<string[]> {
  const warnings: string[] = [];
  for (const notice of notices) {
    const receipt = await roster.send({ from, to: notice.to, body: notice.body, guest });
    if (!receipt.ok)
      warnings.push(`could not tell ${notice.to} about ${notice.card}: ${errorLine(receipt)}`);
  }
  return warnings;
}

/**
 * Read the board, first releasing the cards of owners proven gone, taken over by `reader` (a
 * session id); their notices go to the lead from the reader, as a guest when it is not on the team.
 */
export async function readBoard(
  team: TeamBoard,
  reader: string,
): Promise<
  | { ok: true; board: BoardSnapshot; released: string[]; warnings: string[] }
  | { ok: false; error: string }
> {
  const read = await team.board.read({ reader, decide: releaseDecision });
  if (!read.ok) return { ok: false, error: read.error };
  const warnings = [...read.board.warnings];
  for (const released of read.released)
    warnings.push(...(await sendNotices(team.roster, reader, released.notices, "board")));
  const released = read.released.map((each) => each.card.id);
  return { ok: true, board: read.board, released, warnings };
}

/** The live member with session id `id`, as a board actor. */
export function memberOf(board: BoardSnapshot, id: string): BoardActor | undefined {
  if (board.members === "unknown") return undefined;
  const member = board.members.members.find(
    (candidate) => candidate.id === id && candidate.state === "live",
  );
  return member ? { label: member.label, id: member.id } : undefined;
}

type Settled = { decision: Extract<BoardDecision, { ok: true }>; warnings: string[] };

/** Send a decision's notices (a refused claim of a blocked card tells the lead too). */
async function settle(
  team: TeamBoard,
  actor: BoardActor,
  decision: BoardDecision | BoardFileRefusal,
): Promise<BoardOutcome<Settled>> {
  const warnings =
    "notices" in decision ? await sendNotices(team.roster, actor.id, decision.notices) : [];
  if (!decision.ok) return { ...decision, ok: false };
  return { ok: true, decision, warnings };
}

/** Add a card under the next free id, as core decides it. */
export async function addCard(
  team: TeamBoard,
  actor: BoardActor,
  input: Omit<Extract<BoardChange, { kind: "add" }>, "kind" | "id">,
): Promise<BoardOutcome<Settled>> {
  const decision = await team.board.add((board, id) =>
    decideChange(board, actor, { kind: "add", id, ...input }),
  );
  return settle(team, actor, decision);
}

/**
 * Core's decision, over the card as a read would leave it: a card held by an owner proven gone is
 * released first (its history and the lead's notice say so), so a claim need not wait for a read.
 */
function decideOverTheLiving(
  board: BoardSnapshot,
  actor: BoardActor,
  change: Exclude<BoardChange, { kind: "add" | "ask" }>,
): BoardDecision {
  const parsed = parseCardId(change.card);
  const card = parsed.ok ? board.cards.get(parsed.id) : undefined;
  const verdict = card ? ownerVerdict(card, board.members) : undefined;
  if (!card || !verdict || verdict.keep) return decideChange(board, actor, change);
  const released = releaseCard(card, verdict, board.lead, board.at);
  const cards = new Map(board.cards).set(card.id, released.card);
  const decision = decideChange({ ...board, cards }, actor, change);
  if (!decision.ok) return decision;
  return { ...decision, changed: true, notices: [...released.notices, ...decision.notices] };
}

/** Claim, finish, drop or hand off a card under its claim, as core decides it. */
export async function changeCard(
  team: TeamBoard,
  actor: BoardActor,
  change: Exclude<BoardChange, { kind: "add" | "ask" }>,
): Promise<BoardOutcome<Settled>> {
  const parsed = parseCardId(change.card);
  if (!parsed.ok) return parsed;
  const decision = await team.board.change({
    card: parsed.id,
    actor: actor.id,
    decide: (board) => decideOverTheLiving(board, actor, change),
    after: (done) =>
      change.kind === "claim"
        ? "keep"
        : change.kind === "handoff" && done.to
          ? { transfer: done.to.id }
          : "release",
  });
  return settle(team, actor, decision);
}

/** Ask about a card: mail to its holder, else its creator, as core decides. */
export async function askAboutCard(
  team: TeamBoard,
  actor: BoardActor,
  card: string,
  question: string,
): Promise<BoardOutcome<Settled>> {
  const read = await readBoard(team, actor.id);
  if (!read.ok)
    return {
      ok: false,
      reason: "unwritable",
      error: read.error,
      fix: "check the team folder, then try again",
    };
  return settle(team, actor, decideChange(read.board, actor, { kind: "ask", card, question }));
}

/**
 * Judge a change as if `actor` were on the team, writing nothing: what a caller not on the team
 * checks before it joins to make the change (the identity rule: refused on its input, it never
 * joins). An add is judged under an id no card has.
 */
export async function previewChange(
  team: TeamBoard,
  actor: BoardActor,
  change: Exclude<BoardChange, { kind: "add" }> | Omit<Extract<BoardChange, { kind: "add" }>, "id">,
): Promise<BoardFailure | undefined> {
  const read = await readBoard(team, actor.id);
  if (!read.ok)
    return {
      ok: false,
      reason: "unwritable",
      error: read.error,
      fix: "check the team folder, then try again",
    };
  const view = asIfMember(read.board, actor);
  let free = 1;
  while (read.board.cards.has(`c${free}`)) free += 1;
  const decision = decideChange(
    view,
    actor,
    change.kind === "add" ? { ...change, kind: "add", id: `c${free}` } : change,
  );
  return decision.ok ? undefined : { ...decision, ok: false };
}

/** Set or clear the board's lead, as core decides. */
export async function setLead(
  team: TeamBoard,
  actor: BoardActor,
  to: string,
): Promise<BoardOutcome<{ lead: string | undefined; changed: boolean }>> {
  const decision = await team.board.setLead(actor, (lead, members) =>
    decideLead(lead, actor, to, members),
  );
  return decision.ok ? decision : ({ ...decision, ok: false } as BoardFailure);
}

/** The cards in progress: held, by an owner not proven gone (a reader may not have released yet). */
export function cardsInProgress(board: BoardSnapshot) {
  return [...board.cards.values()]
    .filter((card) => card.state === "held" && ownerVerdict(card, board.members).keep)
    .map((card) => ({
      id: card.id,
      title: card.title,
      owner: card.owner?.label ?? null,
      since: card.history.at(-1)?.at ?? card.createdAt,
    }));
}
