// The task board for MCP engines, read and added to: team_cards, team_card and team_add, the verbs
// of `muster board list|show|add` (the changes to a card are in _board-changes.ts). Rules are
// core's, files the roster's, the wiring @muster/wiring's; these rows name the caller and word the
// answers. A guest reads the board but changes nothing.
import { type CardFilter, listCards, parseCardId } from "@muster/core";
import { addCard, readBoard, teamBoard } from "@muster/wiring";
import * as z from "zod";
import {
  answered,
  CARD,
  cardLine,
  cardsText,
  cardText,
  failureFacts,
  failureText,
  joinedLine,
  seated,
  warningsText,
} from "./_board-text.js";
import { clean } from "./_mail-text.js";
import { result, whoFacts } from "./_result.js";
import type { Standpoint } from "./_team.js";
import { type Call, EDIT, READ, tool } from "./_tool.js";

const STATES = ["open", "ready", "held", "blocked", "done", "all"] as const;

/** Read the board (releasing dead owners' cards first) as the caller, member or guest. */
async function readAs(call: Call) {
  const { roster, standpoint } = await call.begin();
  const reader = standpoint.kind === "member" ? standpoint.caller.id : call.team.guestId;
  return { standpoint, read: await readBoard(teamBoard(roster), reader) };
}

const unreadable = (standpoint: Standpoint, error: string) =>
  result(
    `The board cannot be read: ${clean(error)}.`,
    { ok: false, reason: "board-unknown", error, ...whoFacts(standpoint) },
    true,
  );

export const BOARD_TOOLS = [
  tool({
    name: "team_cards",
    title: "Team task board",
    description:
      "List the team's task board (muster): each card's id, state (open, blocked by unfinished cards, held by a member, done) and title, and the board's lead. Look here before starting work, then claim a card with team_claim so nobody else starts it. By default done cards are left out.",
    input: {
      state: z
        .enum(STATES)
        .optional()
        .describe("open, ready (open and unblocked), held, blocked, done, or all"),
      owner: z.string().max(64).optional().describe("Only the cards this label holds"),
      mine: z.boolean().optional().describe("true for only the cards you hold"),
    },
    annotations: READ,
    serves: { "board-list": true },
    async run(args, call) {
      const { standpoint, read: board } = await readAs(call);
      if (!board.ok) return unreadable(standpoint, board.error);
      if (args.mine && standpoint.kind === "guest")
        return result(
          `You hold no card: you are not on the team (${clean(standpoint.error)}).`,
          { ok: false, reason: "not-member", cards: [], ...whoFacts(standpoint) },
          true,
        );
      const filter: CardFilter = {
        state: args.state,
        owner: args.mine && standpoint.kind === "member" ? standpoint.label : args.owner,
      };
      const cards = listCards(board.board.cards, filter);
      return result(
        joinedLine(standpoint) + cardsText(cards, board.board.lead) + warningsText(board.warnings),
        {
          ok: true,
          lead: board.board.lead ?? null,
          cards,
          released: board.released,
          warnings: board.warnings,
          ...whoFacts(standpoint),
        },
      );
    },
  }),
  tool({
    name: "team_card",
    title: "One card",
    description:
      "Show one card of the team's board in full: title, state and holder, what it waits on, its body, the note it was finished with, and its history (who created, claimed, handed off, dropped or finished it, and when).",
    input: { card: CARD },
    annotations: READ,
    serves: { "board-list": true },
    async run(args, call) {
      const { standpoint, read: board } = await readAs(call);
      const parsed = parseCardId(args.card);
      if (!parsed.ok)
        return result(
          failureText("shown", parsed),
          { ...failureFacts(parsed), ...whoFacts(standpoint) },
          true,
        );
      if (!board.ok) return unreadable(standpoint, board.error);
      const card = listCards(board.board.cards, { state: "all" }).find(
        (each) => each.id === parsed.id,
      );
      if (!card) {
        const refusal = {
          ok: false as const,
          reason: "unknown-card" as const,
          error: `there is no card ${parsed.id}`,
          fix: 'list the cards with team_cards and state "all"',
        };
        return result(
          failureText("shown", refusal),
          { ...failureFacts(refusal), ...whoFacts(standpoint) },
          true,
        );
      }
      return result(joinedLine(standpoint) + cardText(card) + warningsText(board.warnings), {
        ok: true,
        card,
        warnings: board.warnings,
        ...whoFacts(standpoint),
      });
    },
  }),
  tool({
    name: "team_add",
    title: "Add a card",
    description:
      "Add a card to the team's task board: a short one-line title saying what the work is, an optional body with the details, and the ids of cards that must be done first. Any member may add; the answer gives the new card's id (c12). Add one card per piece of work a teammate could pick up on its own.",
    input: {
      title: z.string().max(400).describe('One line, e.g. "Fix the login redirect"'),
      body: z.string().optional().describe("Details: paths, acceptance, links"),
      after: z
        .array(z.string().max(40))
        .max(32)
        .optional()
        .describe('Card ids that must be done before this one can be claimed, e.g. ["c3"]'),
    },
    annotations: EDIT,
    serves: { "board-add": true },
    async run(args, call) {
      const seat = await seated(call, "added");
      if ("content" in seat) return seat;
      const outcome = await addCard(teamBoard(seat.roster), seat.actor, {
        title: args.title,
        body: args.body,
        deps: args.after ?? [],
      });
      return answered(seat.standpoint, "added", outcome, ({ decision }) => ({
        text: `Added ${cardLine({ ...decision.card, blockers: [] })}.`,
        facts: { card: decision.card },
      }));
    },
  }),
];
