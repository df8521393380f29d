// `muster board`: the team's task board from a shell. List (with filters), show, add, claim, done,
// drop, hand off, ask and lead. The rules are core's, the files the roster's (see _board-team.ts);
// a shell not on the team joins first for a change that acts (add, claim, hand off, ask), once that
// change passed as if by the member it would join as: core's identity rule (see _membership.ts).
import { type BoardActor, MEMBER_USE, printable } from "@muster/core";
import {
  addCard,
  askAboutCard,
  changeCard,
  previewChange,
  setLead,
  type TeamBoard,
} from "@muster/wiring";
import { actAsCaller } from "./_acting.js";
import { list, show, warnAll } from "./_board-list.js";
import { renderCard } from "./_board-render.js";
import { boardRefused, openBoard, readBoard, settled } from "./_board-team.js";
import { type Context, type Refused, UsageError } from "./_context.js";
import { type IdentifiedCaller as Caller, resolveProcess } from "./_identity.js";

export type BoardOptions = {
  id?: string | undefined;
  /** The label to join under when this shell is not on the team yet. */
  as?: string | undefined;
  state?: string | undefined;
  owner?: string | undefined;
  mine: boolean;
  body?: string | undefined;
  after?: string | undefined;
};

export async function boardCommand(context: Context, words: string[], options: BoardOptions) {
  const [sub = "list", ...rest] = words;
  const team = await openBoard(context);
  const caller = await resolveProcess(context, options.id);
  switch (sub) {
    case "list":
    case "ls":
      return list(context, team, caller, rest, options);
    case "show":
      return show(context, team, caller, need(rest, 1, "show <card>"));
    case "add":
      return add(context, team, caller, need(rest, 1, "add <title…>"), options);
    case "claim":
    case "done":
    case "drop":
    case "handoff":
      return change(context, team, caller, sub, rest, options);
    case "ask":
      return ask(context, team, caller, need(rest, 2, "ask <card> <question…>"), options);
    case "lead":
      return lead(context, team, caller, rest);
    default:
      // The command row refused it already, with its suggestion (_commands-work.ts).
      throw new UsageError(`unknown board command "${sub}"`);
  }
}

function need(words: string[], count: number, usage: string): string[] {
  if (words.length < count) throw new UsageError(`usage: muster board ${usage}`);
  return words;
}

/** The refusal of a board change judged before a caller not on the team joins for it. */
async function checked(team: TeamBoard, wouldBe: BoardActor, change: Preview) {
  const failure = await previewChange(team, wouldBe, change);
  return failure ? boardRefused(failure) : undefined;
}

type Preview = Parameters<typeof previewChange>[2];

/** Run a board change as the caller's member, by core's identity rule (see _membership.ts). */
function asMember<Result>(
  context: Context,
  team: TeamBoard,
  caller: Caller,
  options: BoardOptions,
  change: Preview & { purpose: string },
  act: (me: BoardActor) => Promise<Result | Refused>,
) {
  const { purpose, ...preview } = change;
  const use = MEMBER_USE[`board-${preview.kind}` as const] ?? "holds";
  return actAsCaller(context, caller, use, {
    as: options.as,
    purpose,
    check: (wouldBe) => checked(team, wouldBe, preview as Preview),
    act,
  });
}

async function add(
  context: Context,
  team: TeamBoard,
  caller: Caller,
  words: string[],
  options: BoardOptions,
) {
  const deps = (options.after ?? "").split(/[\s,]+/u).filter((dep) => dep.length > 0);
  const input = { title: words.join(" "), body: options.body, deps };
  const acted = await asMember(
    context,
    team,
    caller,
    options,
    { kind: "add", ...input, purpose: "to add a card" },
    async (me) => settled(await addCard(team, me, input)),
  );
  if (!acted.ok) return acted;
  const {
    result: { decision: added, warnings },
    joined,
  } = acted;
  if (context.json) return context.emit({ ok: true, card: added.card, warnings, joined });
  warnAll(context, warnings);
  context.out(
    `Added ${context.color.bold(added.card.id)}: ${renderCard(context, { ...added.card, blockers: [] }, { brief: true })}`,
  );
}

const PURPOSE = {
  claim: "to claim",
  done: "to finish",
  drop: "to drop",
  handoff: "to hand off",
} as const;

async function change(
  context: Context,
  team: TeamBoard,
  caller: Caller,
  sub: "claim" | "done" | "drop" | "handoff",
  rest: string[],
  options: BoardOptions,
) {
  const [card, ...words] = rest;
  if (card === undefined)
    throw new UsageError(`usage: muster board ${sub} <card>${sub === "handoff" ? " <label>" : ""}`);
  const text = words.join(" ");
  let request: Parameters<typeof changeCard>[2];
  if (sub === "claim") request = { kind: "claim", card };
  else if (sub === "done") request = { kind: "done", card, note: text };
  else if (sub === "drop") request = { kind: "drop", card, reason: text };
  else {
    const [to, ...message] = words;
    if (to === undefined)
      throw new UsageError("usage: muster board handoff <card> <label> [message…]");
    request = { kind: "handoff", card, to, message: message.join(" ") };
  }
  const acted = await asMember(
    context,
    team,
    caller,
    options,
    { ...request, purpose: `${PURPOSE[sub]} ${printable(card)}` },
    async (me) => settled(await changeCard(team, me, request)),
  );
  if (!acted.ok) return acted;
  const {
    result: { decision, warnings },
    joined,
  } = acted;
  if (context.json)
    return context.emit({
      ok: true,
      changed: decision.changed,
      card: decision.card,
      warnings,
      joined,
    });
  warnAll(context, warnings);
  const id = context.color.bold(decision.card.id);
  const said = {
    claim: decision.changed ? `Claimed ${id}` : `You already hold ${id}`,
    done: `Finished ${id}`,
    drop: `Dropped ${id} back to open`,
    handoff: `Handed ${id} to ${printable(decision.card.owner?.label ?? "?")}; they have mail about it`,
  }[sub];
  context.out(
    `${said}: ${renderCard(context, { ...decision.card, blockers: [] }, { brief: true })}`,
  );
}

async function ask(
  context: Context,
  team: TeamBoard,
  caller: Caller,
  [card = "", ...words]: string[],
  options: BoardOptions,
) {
  const question = words.join(" ");
  const acted = await asMember(
    context,
    team,
    caller,
    options,
    { kind: "ask", card, question, purpose: `to ask about ${printable(card)}` },
    async (me) => settled(await askAboutCard(team, me, card, question)),
  );
  if (!acted.ok) return acted;
  const { result, joined } = acted;
  const { decision: asked, warnings } = result;
  if (context.json)
    return context.emit({
      ok: true,
      card: asked.card.id,
      to: asked.to?.label ?? null,
      warnings,
      joined,
    });
  warnAll(context, warnings);
  context.out(
    `Asked ${printable(asked.to?.label ?? "?")} about ${asked.card.id}; the answer comes as mail (muster inbox).`,
  );
}

async function lead(context: Context, team: TeamBoard, caller: Caller, rest: string[]) {
  if (rest.length > 1) throw new UsageError("usage: muster board lead [<label> | none]");
  const [to] = rest;
  if (to === undefined) {
    const { board, warnings } = await readBoard(team, caller.id);
    if (context.json) return context.emit({ ok: true, lead: board.lead ?? null, warnings });
    warnAll(context, warnings);
    return context.out(
      board.lead
        ? `The lead is ${context.color.bold(printable(board.lead))}.`
        : "The board has no lead; name one with muster board lead <label>.",
    );
  }
  const acted = await actAsCaller(context, caller, "holds", {
    purpose: "",
    check: async () => undefined,
    act: async (me) => settled(await setLead(team, me, to)),
  });
  if (!acted.ok) return acted;
  const decision = acted.result;
  if (context.json)
    return context.emit({ ok: true, lead: decision.lead ?? null, changed: decision.changed });
  context.out(
    decision.lead
      ? `The lead is ${context.color.bold(printable(decision.lead))}: finished, dropped, released and blocked cards are told to it.`
      : "The board has no lead now.",
  );
}
