// The board for the CLI: the shared board wiring (@muster/wiring) opened on this command's team,
// with its refusals turned into the one-line refusals the CLI prints and exits 1 on.
import { boardFailureLine, listCards } from "@muster/core";
import type { BoardSnapshot } from "@muster/roster";
import {
  type BoardFailure,
  type BoardOutcome,
  cardsInProgress as inProgress,
  readBoard as readShared,
  type TeamBoard,
  teamBoard,
} from "@muster/wiring";
import { type Context, type Refused, refused, unreadable } from "./_context.js";

export async function openBoard(context: Context): Promise<TeamBoard> {
  return teamBoard(await context.roster());
}

/** The refusal the CLI answers for a board failure, as a value. */
export const boardRefused = (failure: BoardFailure, warnings: readonly string[] = []) =>
  refused(failure.reason, boardFailureLine(failure), {
    holder: failure.holder ?? null,
    blockers: failure.blockers ?? [],
    ...(failure.suggestion === undefined ? {} : { suggestion: failure.suggestion }),
    warnings,
  });

/** The outcome's value, or its refusal as a value. */
export function settled<Ok>(outcome: BoardOutcome<Ok>): ({ ok: true } & Ok) | Refused {
  return outcome.ok ? outcome : boardRefused(outcome);
}

/** Read the board as `reader`, releasing dead owners' cards; an unreadable board is a refusal. */
export async function readBoard(
  team: TeamBoard,
  reader: string,
): Promise<{ board: BoardSnapshot; warnings: string[] }> {
  const read = await readShared(team, reader);
  if (!read.ok) throw unreadable("board-unknown", read);
  return read;
}

/** A card open but waiting on others (core's `listCards` blocked), as status shows it. */
export type BlockedCard = { id: string; title: string; blockers: string[] };

/**
 * The cards in progress, the cards blocked and the lead, for `muster status`; nothing when there
 * is no board.
 */
export async function cardsInProgress(context: Context): Promise<{
  lead: string | null;
  held: ReturnType<typeof inProgress>;
  blocked: BlockedCard[];
}> {
  try {
    const read = await (await openBoard(context)).board.read();
    if (!read.ok) return { lead: null, held: [], blocked: [] };
    const blocked = listCards(read.board.cards, { state: "blocked" }).map(
      ({ id, title, blockers }) => ({ id, title, blockers }),
    );
    return { lead: read.board.lead ?? null, held: inProgress(read.board), blocked };
  } catch {
    return { lead: null, held: [], blocked: [] };
  }
}

/** For `muster prune`: open every card whose holder is proven gone; the ids opened. */
export async function releaseDeadOwners(context: Context): Promise<string[]> {
  try {
    const read = await readShared(await openBoard(context), "muster-prune");
    return read.ok ? read.released : [];
  } catch {
    return [];
  }
}
