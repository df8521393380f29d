// The task board inside pi: the tools team_cards, team_claim, team_done, team_handoff and
// team_ask, and `/team board`. Rules are core's, files the roster's, the wiring @muster/wiring's; this file only
// turns answers into text for the model and the user. A claim by a session not on the team joins
// first (asked once), and so does a question; a refused join is the refusal, with the join's own
// line.

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
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
import { Type } from "typebox";
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

export function createBoard(session: () => TeamSession | undefined) {
  /** `team_cards`: the cards a filter keeps, one line each, the lead first. */
  async function cards(filter: CardFilter = {}): Promise<string> {
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
    kind: "claim" | "done" | "drop" | "handoff",
    card: string,
    words: { note?: string; to?: string; message?: string } = {},
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
  async function ask(card: string, question: string): Promise<string> {
    const where = await seat(session(), true);
    if (typeof where === "string") return `Not asked: ${where}`;
    if (!where.me) return "Not asked: this session is not on the team.";
    const answer = await askAboutCard(where.board, where.me, card, question);
    if (!answer.ok) return failed("asked", answer);
    const { card: asked, to } = answer.decision;
    return `Asked ${to?.label ?? "?"} about ${asked.id}; the answer comes as team mail.${answer.warnings.length > 0 ? ` (${answer.warnings.join("; ")})` : ""}`;
  }

  /** `/team board [add <title…> | lead <label> | claim|done|drop <card> … | handoff <card> <label> …]`. */
  async function command(words: string[]): Promise<string> {
    const [sub, first, ...rest] = words;
    if (sub === undefined || sub === "list") return cards();
    if (sub === "add") {
      const where = await seat(session(), true);
      if (typeof where === "string") return `Not added: ${where}`;
      if (!where.me || first === undefined) return "usage: /team board add <title…>";
      const added = await addCard(where.board, where.me, { title: [first, ...rest].join(" ") });
      return added.ok
        ? `Added ${added.decision.card.id}: ${added.decision.card.title}`
        : failed("added", added);
    }
    if (sub === "lead") {
      const where = await seat(session(), false);
      if (typeof where === "string" || !where.me || first === undefined)
        return "usage: /team board lead <label|none> (from a session on the team)";
      const set = await setLead(where.board, where.me, first);
      return set.ok
        ? set.lead
          ? `The lead is ${set.lead}.`
          : "The board has no lead now."
        : failed("set", set);
    }
    if ((sub === "claim" || sub === "done" || sub === "drop") && first !== undefined)
      return change(sub, first, { note: rest.join(" ") });
    if (sub === "handoff" && first !== undefined && rest[0] !== undefined)
      return change("handoff", first, { to: rest[0], message: rest.slice(1).join(" ") });
    return "usage: /team board [list | add <title…> | claim <card> | done <card> [note…] | drop <card> <reason…> | handoff <card> <label> [message…] | lead <label|none>]";
  }

  /** The card this session holds, for the footer: `c4`, `c4 +1`, or undefined. */
  async function mine(): Promise<string | undefined> {
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

  return { cards, change, ask, command, mine };
}

type Board = ReturnType<typeof createBoard>;
const CARD = Type.String({ description: 'The card id, e.g. "c4"' });

/**
 * The board's tools for the model; `text` makes what another process wrote safe for pi, and
 * `footer` shows the card this session holds after each change.
 */
export function registerBoardTools(
  pi: ExtensionAPI,
  board: Board,
  text: (line: string) => string,
  footer: (card: string | undefined) => void,
) {
  const answer = (line: string) => {
    void board.mine().then(footer, () => undefined);
    return { content: [{ type: "text" as const, text: text(line) }], details: {} };
  };
  pi.registerTool({
    name: "team_cards",
    label: "Team board",
    description:
      "List the team's task board: each card's id, state (open, blocked by other cards, held by a member, done) and title. Look here before starting work, and claim a card with team_claim so nobody else starts it.",
    parameters: Type.Object({
      state: Type.Optional(
        Type.String({
          description:
            "open, ready (open and unblocked), held, done, blocked or all; default: not done",
        }),
      ),
    }),
    async execute(_toolCallId, params) {
      const states = ["open", "held", "done", "ready", "blocked", "all"];
      const state = states.includes(params.state ?? "")
        ? (params.state as CardFilter["state"])
        : undefined;
      return answer(await board.cards({ state }));
    },
  });
  pi.registerTool({
    name: "team_claim",
    label: "Claim a card",
    description:
      "Claim a card on the team's board before working on it: of several members claiming one card, exactly one gets it; you are told who holds it otherwise. A card whose dependencies are unfinished cannot be claimed.",
    parameters: Type.Object({ card: CARD }),
    async execute(_toolCallId, params) {
      return answer(await board.change("claim", params.card));
    },
  });
  pi.registerTool({
    name: "team_done",
    label: "Finish a card",
    description:
      "Mark a card you hold as done, with a short note of what was done (the lead is told).",
    parameters: Type.Object({
      card: CARD,
      note: Type.Optional(Type.String({ description: "What was done, e.g. a commit or PR" })),
    }),
    async execute(_toolCallId, params) {
      return answer(await board.change("done", params.card, { note: params.note }));
    },
  });
  pi.registerTool({
    name: "team_handoff",
    label: "Hand off a card",
    description:
      "Pass a card you hold to another live member by label (see team_roster), with a message; they get mail naming the card.",
    parameters: Type.Object({
      card: CARD,
      to: Type.String({ description: "The new holder's label" }),
      message: Type.Optional(Type.String({ description: "What they need to know to carry on" })),
    }),
    async execute(_toolCallId, params) {
      return answer(
        await board.change("handoff", params.card, { to: params.to, message: params.message }),
      );
    },
  });
  pi.registerTool({
    name: "team_ask",
    label: "Ask about a card",
    description:
      "Ask a question about a card on the team's board: it goes as team mail to the card's holder, or to its creator when nobody holds it, naming the card; the answer comes back as mail. Use it before claiming a card whose title leaves you unsure what is wanted.",
    parameters: Type.Object({
      card: CARD,
      question: Type.String({ description: "What you want to know, self-contained" }),
    }),
    async execute(_toolCallId, params) {
      return answer(await board.ask(params.card, params.question));
    },
  });
}
