// The board as a reader lists it: which cards a filter keeps, each with what blocks it, in number
// order; and which held cards must be released because their owners are proven gone.
import { byCardNumber, type Card, sameLabel } from "./_board-card.js";
import { blockers } from "./_board-deps.js";
import { type BoardMembers, type OwnerVerdict, ownerVerdict } from "./_board-members.js";

/** Which cards to list. `ready`: open with every dependency done. `blocked`: open but waiting. */
export type CardFilter = {
  state?: "open" | "held" | "done" | "ready" | "blocked" | "all" | undefined;
  /** Cards held by this label (case-insensitive). */
  owner?: string | undefined;
};

export type ListedCard = Card & { blockers: string[] };

/** The cards a filter keeps, by number. With no state asked, done cards are left out. */
export function listCards(cards: ReadonlyMap<string, Card>, filter: CardFilter = {}): ListedCard[] {
  const state = filter.state ?? "active";
  const listed: ListedCard[] = [];
  for (const card of cards.values()) {
    const waiting = card.state === "open" ? blockers(card, cards) : [];
    const keep =
      state === "all" ||
      (state === "active" && card.state !== "done") ||
      state === card.state ||
      (state === "ready" && card.state === "open" && waiting.length === 0) ||
      (state === "blocked" && card.state === "open" && waiting.length > 0);
    if (!keep) continue;
    if (filter.owner !== undefined && !sameLabel(card.owner?.label, filter.owner)) continue;
    listed.push({ ...card, blockers: waiting });
  }
  return listed.sort(byCardNumber);
}

/** The held cards whose owners are proven dead, expired or gone, each with the verdict. */
export function deadOwnerCards(
  cards: Iterable<Card>,
  members: BoardMembers,
): { card: Card; verdict: Extract<OwnerVerdict, { keep: false }> }[] {
  const found: { card: Card; verdict: Extract<OwnerVerdict, { keep: false }> }[] = [];
  for (const card of cards) {
    const verdict = ownerVerdict(card, members);
    if (!verdict.keep) found.push({ card, verdict });
  }
  return found.sort((left, right) => byCardNumber(left.card, right.card));
}
