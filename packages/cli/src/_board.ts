// `muster board`: the team's task board from a shell. List (with filters), show, add, claim, done,
// drop, hand off, ask and lead. The rules are core's, the files the roster's (see _board-team.ts);
// a shell that is not on the team joins first (add, claim, ask) through the core join rules.
import {
  type BoardActor,
  boardFailureLine,
  type CardFilter,
  chooseLabel,
  listCards,
  parseCardId,
  printable,
} from "@muster/core";
import {
  addCard,
  askAboutCard,
  changeCard,
  memberOf,
  setLead,
  type TeamBoard,
} from "@muster/wiring";
import { renderCard, renderCards } from "./_board-render.js";
import { openBoard, readBoard, settled } from "./_board-team.js";
import { type Context, Refusal, UsageError } from "./_context.js";
import { type IdentifiedCaller as Caller, resolveProcess } from "./_identity.js";
import { joinAsCaller } from "./_membership.js";

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

const STATES = ["open", "held", "done", "ready", "blocked", "all"] as const;

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
      throw new UsageError(
        `unknown board command "${sub}": use list, show, add, claim, done, drop, handoff, ask or lead`,
      );
  }
}

function need(words: string[], count: number, usage: string): string[] {
  if (words.length < count) throw new UsageError(`usage: muster board ${usage}`);
  return words;
}

function warnAll(context: Context, warnings: readonly string[]) {
  if (!context.json) for (const warning of warnings) context.warn(warning);
}

async function list(
  context: Context,
  team: TeamBoard,
  caller: Caller,
  rest: string[],
  options: BoardOptions,
) {
  if (rest.length > 0)
    throw new UsageError(
      "muster board list takes no words; filter with --state, --owner or --mine",
    );
  const state = options.state;
  if (state !== undefined && !(STATES as readonly string[]).includes(state))
    throw new UsageError(`--state takes ${STATES.join(", ")}, not "${state}"`);
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
  if (context.json) return context.emit({ ok: true, lead: board.lead ?? null, cards, warnings });
  warnAll(context, warnings);
  context.out(renderCards(context, cards, board.lead, me));
}

async function show(context: Context, team: TeamBoard, caller: Caller, [typed]: string[]) {
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

/** This shell as a member: joined first (asked once) when it is not on the team. */
async function asMember(
  context: Context,
  team: TeamBoard,
  caller: Caller,
  options: BoardOptions,
): Promise<BoardActor> {
  const { board } = await readBoard(team, caller.id);
  const me = memberOf(board, caller.id);
  if (me) return me;
  const read = await team.roster.read();
  const taken = read.ok ? read.members.map((member) => member.label) : [];
  const label = chooseLabel({
    flag: options.as,
    env: context.io.env.MUSTER_LABEL,
    taken,
    random: Math.random,
    prefix: caller.engine ?? "shell",
  }).label;
  const joined = await joinAsCaller(context, caller, {
    label,
    addressed: board.lead?.toLowerCase() === label.toLowerCase(),
  });
  if (!context.json)
    context.out(
      `Joined the team as ${context.color.bold(printable(joined.standing.label))} first.`,
    );
  return { label: joined.standing.label, id: caller.id };
}

/** This shell as a member, or the refusal: it holds nothing when it is not on the team. */
async function mustBeMember(team: TeamBoard, caller: Caller): Promise<BoardActor> {
  const { board } = await readBoard(team, caller.id);
  const me = memberOf(board, caller.id);
  if (!me)
    throw new Refusal(
      "not-member",
      "this shell is not on the team, so it holds no card; join first with muster join <label>",
    );
  return me;
}

async function add(
  context: Context,
  team: TeamBoard,
  caller: Caller,
  words: string[],
  options: BoardOptions,
) {
  const me = await asMember(context, team, caller, options);
  const deps = (options.after ?? "").split(/[\s,]+/u).filter((dep) => dep.length > 0);
  const { decision: added, warnings } = settled(
    await addCard(team, me, { title: words.join(" "), body: options.body, deps }),
  );
  if (context.json) return context.emit({ ok: true, card: added.card, warnings });
  warnAll(context, warnings);
  context.out(
    `Added ${context.color.bold(added.card.id)}: ${renderCard(context, { ...added.card, blockers: [] }, { brief: true })}`,
  );
}

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
  const me =
    sub === "claim"
      ? await asMember(context, team, caller, options)
      : await mustBeMember(team, caller);
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
  const { decision, warnings } = settled(await changeCard(team, me, request));
  if (context.json)
    return context.emit({ ok: true, changed: decision.changed, card: decision.card, warnings });
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
  [card, ...words]: string[],
  options: BoardOptions,
) {
  const me = await asMember(context, team, caller, options);
  const { decision: asked, warnings } = settled(
    await askAboutCard(team, me, card ?? "", words.join(" ")),
  );
  if (context.json)
    return context.emit({ ok: true, card: asked.card.id, to: asked.to?.label ?? null, warnings });
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
  const me = await mustBeMember(team, caller);
  const decision = settled(await setLead(team, me, to));
  if (context.json)
    return context.emit({ ok: true, lead: decision.lead ?? null, changed: decision.changed });
  context.out(
    decision.lead
      ? `The lead is ${context.color.bold(printable(decision.lead))}: finished, dropped, released and blocked cards are told to it.`
      : "The board has no lead now.",
  );
}
