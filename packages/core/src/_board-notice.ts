// The notices a board change sends, as data: to whom (a label), about which card, and the words.
// The lead hears of cards finished, dropped, released from a dead owner, and claims refused as
// blocked; a hand-off tells the new owner; a question goes to the card's owner or creator.
import { sameLabel } from "./_board-card.js";

export type BoardNoticeKind =
  | "finished"
  | "dropped"
  | "released"
  | "blocked"
  | "handed-off"
  | "asked";

export type BoardNotice = { to: string; kind: BoardNoticeKind; card: string; body: string };

/** Notices for the lead: none when there is no lead, or when the lead made the change itself. */
export function leadNotices(
  lead: string | undefined,
  actor: string | undefined,
  notice: Omit<BoardNotice, "to">,
): BoardNotice[] {
  if (lead === undefined || sameLabel(lead, actor)) return [];
  return [{ ...notice, to: lead }];
}
