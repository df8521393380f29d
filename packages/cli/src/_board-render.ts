// The board for a person: a table of cards and one card in full. Every field another process wrote
// passes through core's `printable` before it is coloured. JSON output never passes here.
import { type BoardActor, type ListedCard, printable } from "@muster/core";
import type { Context } from "./_context.js";
import { age, table } from "./_render.js";

const since = (at: string) => age(Math.max(0, Date.now() - Date.parse(at)));

function stateWord(context: Context, card: ListedCard, me: BoardActor | undefined): string {
  const { color } = context;
  if (card.state === "done") return color.dim("done");
  if (card.state === "held")
    return card.owner?.id === me?.id ? color.green("yours") : color.yellow("held");
  // The state word is the card's `state` as --json has it; a card waiting on unfinished ones is
  // still open, said beside its title as "blocked by" its `blockers` (what --state blocked lists).
  return card.blockers.length > 0 ? color.dim("open") : color.green("open");
}

/** The cards as a table, the lead above it. */
export function renderCards(
  context: Context,
  cards: readonly ListedCard[],
  lead: string | undefined,
  me: BoardActor | undefined,
): string {
  const { color } = context;
  const head = lead
    ? `lead ${color.bold(printable(lead))}`
    : color.dim("no lead (muster board lead <label>)");
  if (cards.length === 0) return `${head}\n  no cards here; add one with muster board add <title>`;
  const rows = cards.map((card) => [
    color.bold(card.id),
    stateWord(context, card, me),
    card.owner ? printable(card.owner.label) : "-",
    since(card.history.at(-1)?.at ?? card.createdAt),
    printable(card.title) +
      (card.blockers.length > 0 ? color.dim(`  (blocked by ${card.blockers.join(", ")})`) : ""),
  ]);
  return [head, ...table(["CARD", "STATE", "HOLDER", "AGE", "TITLE"], rows)].join("\n");
}

/** One card: its title (brief), or everything with its history. */
export function renderCard(
  context: Context,
  card: ListedCard,
  options: { brief?: boolean } = {},
): string {
  const { color } = context;
  const title = printable(card.title);
  if (options.brief)
    return `"${title}"${card.owner ? ` (held by ${printable(card.owner.label)})` : ""}`;
  const lines = [
    `${color.bold(card.id)} ${title}`,
    `  state    ${card.state}${card.owner ? ` by ${printable(card.owner.label)}` : ""}`,
    `  created  by ${printable(card.createdBy)}, ${since(card.createdAt)} ago`,
  ];
  if (card.deps.length > 0)
    lines.push(
      `  after    ${card.deps.join(", ")}${card.blockers.length > 0 ? ` (blocked by ${card.blockers.join(", ")})` : ""}`,
    );
  if (card.note) lines.push(`  note     ${printable(card.note)}`);
  if (card.body)
    lines.push(
      "",
      ...printable(card.body, { lines: true })
        .split("\n")
        .map((line) => `  ${line}`),
    );
  lines.push("", "  history");
  for (const entry of card.history) {
    const to = entry.to ? ` → ${printable(entry.to)}` : "";
    const note = entry.note ? color.dim(`: ${printable(entry.note)}`) : "";
    lines.push(
      `    ${color.dim(entry.at.slice(0, 19).replace("T", " "))}  ${entry.event} by ${printable(entry.by)}${to}${note}`,
    );
  }
  return lines.join("\n");
}

/** The cards in progress and who holds them, and the cards blocked, for `muster status`. */
export function renderInProgress(
  context: Context,
  board: {
    lead: string | null;
    held: { id: string; title: string; owner: string | null; since: string }[];
    blocked?: { id: string; title: string; blockers: string[] }[];
  },
): string {
  const { color } = context;
  const lead = board.lead ? color.dim(`; the board's lead: ${printable(board.lead)}`) : "";
  const rows = board.held.map((card) => [
    color.bold(card.id),
    card.owner ? color.bold(printable(card.owner)) : "-",
    since(card.since),
    printable(card.title),
  ]);
  return [
    "",
    color.bold(`Cards in progress (${board.held.length})`) + lead,
    ...(rows.length > 0 ? table(["CARD", "HOLDER", "FOR", "TITLE"], rows) : ["  none"]),
    ...blockedRows(context, board.blocked ?? []),
  ].join("\n");
}

function blockedRows(
  context: Context,
  blocked: readonly { id: string; title: string; blockers: string[] }[],
): string[] {
  if (blocked.length === 0) return [];
  const rows = blocked.map((card) => [
    context.color.bold(card.id),
    printable(card.blockers.join(",")),
    printable(card.title),
  ]);
  return [
    "",
    context.color.bold(`Blocked (${blocked.length})`),
    ...table(["CARD", "WAITS ON", "TITLE"], rows),
  ];
}
