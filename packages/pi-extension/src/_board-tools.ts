// pi's tools for the task board: team_cards, team_add, team_claim, team_done, team_handoff, team_ask
// and team_lead.
// Each is a call into the board (_board.ts); after each, the footer shows the card this session
// holds.
import type { CardFilter } from "@muster/core";
import { Type } from "typebox";
import { type ToolContext, tool } from "./_tool.js";

const CARD = Type.String({ description: 'The card id, e.g. "c4"' });
const STATES = ["open", "held", "done", "ready", "blocked", "all"];

/** The board's answer, and the footer brought up to date. */
const shown = (text: string, { footer }: ToolContext) => {
  footer.card();
  return { text };
};

export const BOARD_TOOLS = [
  tool({
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
    serves: { "board-list": true },
    async run(params, context) {
      const state = STATES.includes(params.state ?? "")
        ? (params.state as CardFilter["state"])
        : undefined;
      return shown(await context.board.cards({ state }), context);
    },
  }),
  tool({
    name: "team_add",
    label: "Add a card",
    description:
      "Add a card to the team's task board: a short one-line title saying what the work is, an optional body with the details, and the ids of cards that must be done first (it cannot be claimed before). Any member may add; the answer gives the new card's id (c12). Add one card per piece of work a teammate could pick up on its own.",
    parameters: Type.Object({
      title: Type.String({
        description: 'One line, e.g. "Fix the login redirect"',
        maxLength: 400,
      }),
      body: Type.Optional(Type.String({ description: "Details: paths, acceptance, links" })),
      after: Type.Optional(
        Type.Array(Type.String({ maxLength: 40 }), {
          maxItems: 32,
          description: 'Card ids that must be done before this one can be claimed, e.g. ["c3"]',
        }),
      ),
    }),
    serves: { "board-add": true },
    run: async (params, context) =>
      shown(
        (await context.board.add(params.title, { body: params.body, after: params.after })) ??
          "Not added: this session is not on the team.",
        context,
      ),
  }),
  tool({
    name: "team_claim",
    label: "Claim a card",
    description:
      "Claim a card on the team's board before working on it: of several members claiming one card, exactly one gets it; you are told who holds it otherwise. A card whose dependencies are unfinished cannot be claimed.",
    parameters: Type.Object({ card: CARD }),
    serves: { "board-claim": true },
    run: async (params, context) =>
      shown(await context.board.change("claim", params.card), context),
  }),
  tool({
    name: "team_done",
    label: "Finish a card",
    description:
      "Mark a card you hold as done, with a short note of what was done (the lead is told).",
    parameters: Type.Object({
      card: CARD,
      note: Type.Optional(Type.String({ description: "What was done, e.g. a commit or PR" })),
    }),
    serves: { "board-done": true },
    run: async (params, context) =>
      shown(await context.board.change("done", params.card, { note: params.note }), context),
  }),
  tool({
    name: "team_handoff",
    label: "Hand off a card",
    description:
      "Pass a card you hold to another live member by label (see team_roster), with a message; they get mail naming the card.",
    parameters: Type.Object({
      card: CARD,
      to: Type.String({ description: "The new holder's label" }),
      message: Type.Optional(Type.String({ description: "What they need to know to carry on" })),
    }),
    serves: { "board-handoff": true },
    run: async (params, context) =>
      shown(
        await context.board.change("handoff", params.card, {
          to: params.to,
          message: params.message,
        }),
        context,
      ),
  }),
  tool({
    name: "team_ask",
    label: "Ask about a card",
    description:
      "Ask a question about a card on the team's board: it goes as team mail to the card's holder, or to its creator when nobody holds it, naming the card; the answer comes back as mail. Use it before claiming a card whose title leaves you unsure what is wanted.",
    parameters: Type.Object({
      card: CARD,
      question: Type.String({ description: "What you want to know, self-contained" }),
    }),
    serves: { "board-ask": true },
    run: async (params, context) =>
      shown(await context.board.ask(params.card, params.question), context),
  }),
  tool({
    name: "team_lead",
    label: "Name the board's lead",
    description:
      'Name the member who leads the board by label (see team_roster), or "none": the lead is told when a card is finished, dropped or released.',
    parameters: Type.Object({
      label: Type.String({ description: 'The lead\'s label, or "none"' }),
    }),
    serves: { "board-lead": true },
    run: async (params, context) =>
      shown(
        (await context.board.lead(params.label)) ?? "Not set: this session is not on the team.",
        context,
      ),
  }),
];
