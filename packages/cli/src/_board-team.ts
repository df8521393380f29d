// The board as the CLI wires it: the roster's board files driven by core's rules. A read releases
// the cards of owners proven gone (and tells the lead); a change runs core's decision under the
// card's claim and sends the notices it names as mail. No rule is decided here.
import {
  type BoardActor,
  type BoardChange,
  type BoardDecision,
  type BoardNotice,
  type BoardView,
  boardFailureLine,
  decideChange,
  ownerVerdict,
  parseCardId,
  releaseCard,
} from "@muster/core";
import type { Board, BoardSnapshot, Roster } from "@muster/roster";
import { type Context, Refusal } from "./_context.js";
import { type Caller, resolveCaller } from "./_identity.js";

export type TeamBoard = { roster: Roster; board: Board };

export async function openBoard(context: Context): Promise<TeamBoard> {
  const roster = await context.roster();
  return { roster, board: roster.board({ ownerVerdict }) };
}

/** The release of a card whose owner is proven gone, as core decides it over the board now. */
function releaseDecision(board: BoardSnapshot, id: string) {
  const card = board.cards.get(id);
  const verdict = card ? ownerVerdict(card, board.members) : undefined;
  if (!card || !verdict || verdict.keep) return { ok: false as const };
  const released = releaseCard(card, verdict, board.lead, board.at);
  return { ok: true as const, changed: true, card: released.card, notices: released.notices };
}

/**
 * Read the board, releasing the cards of owners proven gone first; their notices go to the lead
 * from `reader` (as a guest when the reader is not on the team). Unreadable: a refusal.
 */
export async function readBoard(
  context: Context,
  team: TeamBoard,
  reader: Caller,
): Promise<{ board: BoardSnapshot; warnings: string[] }> {
  const read = await team.board.read({ reader: reader.id, decide: releaseDecision });
  if (!read.ok) throw new Refusal("board-unknown", `${read.error}; run muster doctor`);
  const warnings = [...read.board.warnings];
  for (const released of read.released) {
    warnings.push(...(await sendNotices(team.roster, reader.id, released.notices, "muster")));
  }
  return { board: read.board, warnings };
}

/** Send each notice as mail from `from`; the ones that could not go come back as warnings. */
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
      warnings.push(`could not tell ${notice.to} about ${notice.card}: ${receipt.error}`);
  }
  return warnings;
}

/** The member this shell is, if it is a live member: its label and id. */
export function memberOf(board: BoardSnapshot, caller: Caller): BoardActor | undefined {
  if (board.members === "unknown") return undefined;
  const member = board.members.members.find(
    (candidate) => candidate.id === caller.id && candidate.state === "live",
  );
  return member ? { label: member.label, id: member.id } : undefined;
}

/** The board as core's rules read it. */
export const viewOf = (board: BoardSnapshot): BoardView => board;

/** Run one change under the card's claim; the decision, with its notices sent. */
export async function changeCard(
  team: TeamBoard,
  actor: BoardActor,
  change: Exclude<BoardChange, { kind: "add" }>,
): Promise<{ decision: Extract<BoardDecision, { ok: true }>; warnings: string[] }> {
  const decide = (board: BoardSnapshot) => decideChange(viewOf(board), actor, change);
  const parsed = parseCardId(change.card);
  if (!parsed.ok) throw new Refusal(parsed.reason, boardFailureLine(parsed));
  const decision = await team.board.change({
    card: parsed.id,
    actor: actor.id,
    decide,
    after: (done) =>
      change.kind === "claim"
        ? "keep"
        : change.kind === "handoff" && done.to
          ? { transfer: done.to.id }
          : "release",
  });
  return settle(team, actor, decision);
}

/** Send the notices of a decision; a refusal becomes the one-line refusal the CLI prints. */
export async function settle<Decision extends { ok: boolean }>(
  team: TeamBoard,
  actor: BoardActor,
  decision: Decision | BoardDecision,
): Promise<{ decision: Extract<BoardDecision, { ok: true }>; warnings: string[] }> {
  const notices = "notices" in decision ? decision.notices : [];
  const warnings = await sendNotices(team.roster, actor.id, notices);
  if (!decision.ok) throw refusalOf(decision, warnings);
  return { decision: decision as Extract<BoardDecision, { ok: true }>, warnings };
}

function refusalOf(decision: { ok: boolean }, warnings: string[]): Refusal {
  const refused = decision as {
    reason?: string;
    error?: string;
    fix?: string;
    holder?: string;
    blockers?: string[];
  };
  const line = boardFailureLine({ error: refused.error ?? "refused", fix: refused.fix ?? "" });
  return new Refusal(refused.reason ?? "refused", line, {
    holder: refused.holder ?? null,
    blockers: refused.blockers ?? [],
    warnings,
  });
}

export { resolveCaller };

/** The cards in progress and their holders, for `muster status`; empty when there is no board. */
export async function cardsInProgress(context: Context) {
  try {
    const team = await openBoard(context);
    const read = await team.board.read();
    if (!read.ok) return { lead: null, held: [] };
    // A card whose owner is proven gone is not in progress, though no reader has released it yet.
    const held = [...read.board.cards.values()].filter(
      (card) => card.state === "held" && ownerVerdict(card, read.board.members).keep,
    );
    return {
      lead: read.board.lead ?? null,
      held: held.map((card) => ({
        id: card.id,
        title: card.title,
        owner: card.owner?.label ?? null,
        since: card.history.at(-1)?.at ?? card.createdAt,
      })),
    };
  } catch {
    return { lead: null, held: [] };
  }
}
