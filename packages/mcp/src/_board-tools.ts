// The task board for MCP engines: team_cards, team_card, team_add, team_claim, team_done,
// team_drop, team_handoff, team_ask and team_lead, the verbs of `muster board`. Rules are core's,
// files the roster's, the wiring @muster/wiring's; this file names the caller and words answers.
// The caller has joined before any tool runs (see _team.ts); a guest reads the board but changes
// nothing, and a refused join is the change's refusal, with the join's own line and fix.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { type CardFilter, listCards, parseCardId } from "@muster/core";
import type { Roster } from "@muster/roster";
import { addCard, readBoard, teamBoard } from "@muster/wiring";
import { z } from "zod";
import { registerCardChanges } from "./_board-changes.js";
import {
  answered,
  CARD,
  cardLine,
  cardsText,
  cardText,
  EDIT,
  failureFacts,
  failureText,
  joinedLine,
  type Seated,
  warningsText,
} from "./_board-text.js";
import type { CallMeta } from "./_identity.js";
import { clean } from "./_mail-text.js";
import { type Result, result, whoFacts } from "./_result.js";
import type { Standpoint } from "./_team.js";

type Begin = (meta: CallMeta) => Promise<{ roster: Roster; standpoint: Standpoint }>;
const STATES = ["open", "ready", "held", "blocked", "done", "all"] as const;

/** A guest's refusal: a refused join says the join's own line and fix; any other guest, why. */
function notMember(verb: string, standpoint: Extract<Standpoint, { kind: "guest" }>): Result {
  const text =
    standpoint.cause === "join"
      ? `Not ${verb}: ${clean(standpoint.why)}`
      : `Not ${verb}: you are not on the team (${clean(standpoint.why)}), so you cannot change the board.`;
  return result(text, { ok: false, reason: "not-member", ...whoFacts(standpoint) }, true);
}

export function registerBoardTools(server: McpServer, begin: Begin, guestId: string) {
  /** The caller as a board actor, or its refusal. */
  const seated = async (meta: unknown, verb: string): Promise<Seated | Result> => {
    const { roster, standpoint } = await begin(meta as CallMeta);
    if (standpoint.kind === "guest") return notMember(verb, standpoint);
    return { roster, standpoint, actor: { label: standpoint.label, id: standpoint.caller.id } };
  };
  /** Read the board (releasing dead owners' cards first) as the caller, member or guest. */
  const read = async (meta: unknown) => {
    const { roster, standpoint } = await begin(meta as CallMeta);
    const reader = standpoint.kind === "member" ? standpoint.caller.id : guestId;
    return { standpoint, read: await readBoard(teamBoard(roster), reader) };
  };
  const unreadable = (standpoint: Standpoint, error: string) =>
    result(
      `The board cannot be read: ${clean(error)}.`,
      { ok: false, reason: "board-unknown", error, ...whoFacts(standpoint) },
      true,
    );

  server.registerTool(
    "team_cards",
    {
      title: "Team task board",
      description:
        "List the team's task board (muster): each card's id, state (open, blocked by unfinished cards, held by a member, done) and title, and the board's lead. Look here before starting work, then claim a card with team_claim so nobody else starts it. By default done cards are left out.",
      inputSchema: {
        state: z
          .enum(STATES)
          .optional()
          .describe("open, ready (open and unblocked), held, blocked, done, or all"),
        owner: z.string().max(64).optional().describe("Only the cards this label holds"),
        mine: z.boolean().optional().describe("true for only the cards you hold"),
      },
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      const { standpoint, read: board } = await read(extra._meta);
      if (!board.ok) return unreadable(standpoint, board.error);
      if (args.mine && standpoint.kind === "guest")
        return result(
          `You hold no card: you are not on the team (${clean(standpoint.why)}).`,
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
  );

  server.registerTool(
    "team_card",
    {
      title: "One card",
      description:
        "Show one card of the team's board in full: title, state and holder, what it waits on, its body, the note it was finished with, and its history (who created, claimed, handed off, dropped or finished it, and when).",
      inputSchema: { card: CARD },
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      const { standpoint, read: board } = await read(extra._meta);
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
  );

  server.registerTool(
    "team_add",
    {
      title: "Add a card",
      description:
        "Add a card to the team's task board: a short one-line title saying what the work is, an optional body with the details, and the ids of cards that must be done first. Any member may add; the answer gives the new card's id (c12). Add one card per piece of work a teammate could pick up on its own.",
      inputSchema: {
        title: z.string().max(400).describe('One line, e.g. "Fix the login redirect"'),
        body: z.string().optional().describe("Details: paths, acceptance, links"),
        after: z
          .array(z.string().max(40))
          .max(32)
          .optional()
          .describe('Card ids that must be done before this one can be claimed, e.g. ["c3"]'),
      },
      annotations: EDIT,
    },
    async (args, extra) => {
      const seat = await seated(extra._meta, "added");
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
  );

  registerCardChanges(server, seated);
}
