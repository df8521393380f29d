// `muster board` and `muster board show`: the board read from a shell, filtered, one card whole.
// Reading changes nothing; the changes are `_board.ts`'s.
import {
  boardFailureLine,
  type CardFilter,
  didYouMean,
  listCards,
  nearestName,
  parseCardId,
} from "@muster/core";
import type { BoardSnapshot } from "@muster/roster";
import { memberOf, type TeamBoard } from "@muster/wiring";
import { renderCard, renderCards } from "./_board-render.js";
import { readBoard } from "./_board-team.js";
import { type Context, Refusal, UsageError } from "./_context.js";
import type { IdentifiedCaller as Caller } from "./_identity.js";

const STATES = ["open", "held", "done", "ready", "blocked", "all"] as const;

/** The label a mistyped `--owner` most likely meant: a live member's, or a card holder's. */
function ownerMeant(board: BoardSnapshot, owner: string | undefined) {
  if (owner === undefined) return undefined;
  const members = board.members === "unknown" ? [] : board.members.members;
  const labels = [
    ...members.filter((member) => member.state === "live").map((member) => member.label),
    ...[...board.cards.values()].flatMap((card) => (card.owner ? [card.owner.label] : [])),
  ];
  if (labels.some((label) => label.toLowerCase() === owner.toLowerCase())) return undefined;
  return nearestName(owner, labels);
}

export function warnAll(context: Context, warnings: readonly string[]) {
  if (!context.json) for (const warning of warnings) context.warn(warning);
}

export async function list(
  context: Context,
  team: TeamBoard,
  caller: Caller,
  rest: string[],
  options: { state?: string | undefined; owner?: string | undefined; mine: boolean },
) {
  if (rest.length > 0)
    throw new UsageError(
      "muster board list takes no words; filter with --state, --owner or --mine",
    );
  const state = options.state;
  if (state !== undefined && !(STATES as readonly string[]).includes(state))
    throw new UsageError(`--state takes ${STATES.join(", ")}, not "${state}"`, {
      suggestion: nearestName(state, STATES),
    });
  const { board, warnings } = await readBoard(team, caller.id);
  const me = memberOf(board, caller.id);
  if (options.mine && !me)
    throw new Refusal(
      "not-member",
      "this shell is not on the team, so it holds no card; join first with muster join <label>",
    );
  const filter: CardFilter = {
    state: state as CardFilter["state"],
    owner: options.mine ? me?.label : options.owner,
  };
  const cards = listCards(board.cards, filter);
  const suggestion = cards.length === 0 ? ownerMeant(board, filter.owner) : undefined;
  if (context.json)
    return context.emit({
      ok: true,
      lead: board.lead ?? null,
      cards,
      warnings,
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  warnAll(context, warnings);
  if (suggestion !== undefined)
    context.warn(`no card is held by ${filter.owner}; ${didYouMean(suggestion)}`);
  context.out(renderCards(context, cards, board.lead, me));
}

export async function show(context: Context, team: TeamBoard, caller: Caller, [typed]: string[]) {
  const parsed = parseCardId(typed ?? "");
  if (!parsed.ok) throw new Refusal(parsed.reason, boardFailureLine(parsed));
  const { board, warnings } = await readBoard(team, caller.id);
  const card = listCards(board.cards, { state: "all" }).find((each) => each.id === parsed.id);
  if (!card)
    throw new Refusal(
      "unknown-card",
      `there is no card ${parsed.id}; list the cards with muster board --state all`,
    );
  if (context.json) return context.emit({ ok: true, card, warnings });
  warnAll(context, warnings);
  context.out(renderCard(context, card));
}
