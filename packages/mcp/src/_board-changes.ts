// The changes to one card for MCP engines: team_claim, team_done, team_drop, team_handoff and
// team_ask, and the board's lead (team_lead). Each is a call into the shared board wiring; this
// file words the answers.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { askAboutCard, changeCard, setLead, teamBoard } from "@muster/wiring";
import { z } from "zod";
import { answered, CARD, EDIT, type Seat } from "./_board-text.js";
import { clean } from "./_mail-text.js";

/** The changes to one card: claim, done, drop, handoff, ask; and the lead. */
export function registerCardChanges(server: McpServer, seated: Seat) {
  const change = async (
    meta: unknown,
    verb: string,
    request: Parameters<typeof changeCard>[2],
    said: (
      card: { id: string; title: string; owner?: { label: string } | undefined },
      changed: boolean,
    ) => string,
  ) => {
    const seat = await seated(meta, verb);
    if ("content" in seat) return seat;
    const outcome = await changeCard(teamBoard(seat.roster), seat.actor, request);
    return answered(seat.standpoint, verb, outcome, ({ decision }) => ({
      text: `${said(decision.card, decision.changed)}: ${clean(decision.card.title)}`,
      facts: { changed: decision.changed, card: decision.card },
    }));
  };

  server.registerTool(
    "team_claim",
    {
      title: "Claim a card",
      description:
        "Claim a card on the team's board before you start working on it, so no teammate starts the same work: of several agents claiming one card at once, exactly one gets it, and the others are told who holds it. A card whose dependencies are unfinished cannot be claimed yet (the answer names them). When you are done, call team_done; if you stop, team_drop or team_handoff.",
      inputSchema: { card: CARD },
      annotations: EDIT,
    },
    async (args, extra) =>
      change(extra._meta, "claimed", { kind: "claim", card: args.card }, (card, changed) =>
        changed ? `Claimed ${card.id}` : `You already hold ${card.id}`,
      ),
  );

  server.registerTool(
    "team_done",
    {
      title: "Finish a card",
      description:
        "Mark a card you hold as done, with a short note of what was done (a commit, a PR, where the result is). The board's lead is told. Only the card's holder can finish it.",
      inputSchema: {
        card: CARD,
        note: z.string().optional().describe("What was done, e.g. a commit id or PR"),
      },
      annotations: EDIT,
    },
    async (args, extra) =>
      change(
        extra._meta,
        "finished",
        { kind: "done", card: args.card, note: args.note },
        (card) => `Finished ${card.id}; the lead is told`,
      ),
  );

  server.registerTool(
    "team_drop",
    {
      title: "Drop a card",
      description:
        "Give a card you hold back to the board, open for anyone to claim, with the reason you stopped (blocked, out of scope, no time). The board's lead is told. To pass it to a particular teammate instead, use team_handoff.",
      inputSchema: {
        card: CARD,
        reason: z.string().describe("Why you are giving it back, for whoever picks it up"),
      },
      annotations: EDIT,
    },
    async (args, extra) =>
      change(
        extra._meta,
        "dropped",
        { kind: "drop", card: args.card, reason: args.reason },
        (card) => `Dropped ${card.id} back to open`,
      ),
  );

  server.registerTool(
    "team_handoff",
    {
      title: "Hand off a card",
      description:
        "Pass a card you hold to another live member of the team by label (see team_roster), with a message saying what they need to carry on; they become its holder at once and get mail naming the card.",
      inputSchema: {
        card: CARD,
        to: z.string().max(64).describe("The new holder's label"),
        message: z.string().optional().describe("What they need to know to carry on"),
      },
      annotations: EDIT,
    },
    async (args, extra) =>
      change(
        extra._meta,
        "handed off",
        { kind: "handoff", card: args.card, to: args.to, message: args.message },
        (card) =>
          `Handed ${card.id} to ${clean(card.owner?.label ?? "?")}; they have mail about it`,
      ),
  );

  server.registerTool(
    "team_ask",
    {
      title: "Ask about a card",
      description:
        "Ask a question about a card: it goes as team mail to the card's holder, or to its creator when nobody holds it, naming the card. The answer comes back as mail (team_inbox). Use it before claiming a card whose title leaves you unsure what is wanted.",
      inputSchema: {
        card: CARD,
        question: z.string().describe("What you want to know, self-contained"),
      },
      annotations: EDIT,
    },
    async (args, extra) => {
      const seat = await seated(extra._meta, "asked");
      if ("content" in seat) return seat;
      const outcome = await askAboutCard(
        teamBoard(seat.roster),
        seat.actor,
        args.card,
        args.question,
      );
      return answered(seat.standpoint, "asked", outcome, ({ decision }) => ({
        text: `Asked ${clean(decision.to?.label ?? "?")} about ${decision.card.id}; the answer comes as mail (team_inbox).`,
        facts: { card: decision.card.id, to: decision.to?.label ?? null },
      }));
    },
  );

  server.registerTool(
    "team_lead",
    {
      title: "The board's lead",
      description:
        'Name the board\'s lead: the member (by label) told when a card is finished, dropped, released because its holder died, or cannot be claimed because it is blocked. "none" clears it. Anyone may name a lead while there is none or the lead has left; after that only the lead passes it on.',
      inputSchema: {
        to: z.string().max(64).describe('The new lead\'s label, or "none"'),
      },
      annotations: EDIT,
    },
    async (args, extra) => {
      const seat = await seated(extra._meta, "set");
      if ("content" in seat) return seat;
      const outcome = await setLead(teamBoard(seat.roster), seat.actor, args.to);
      const withWarnings = outcome.ok ? { ...outcome, warnings: [] } : outcome;
      return answered(seat.standpoint, "set", withWarnings, (set) => ({
        text: set.lead
          ? `The lead is ${clean(set.lead)}: finished, dropped, released and blocked cards are told to it.`
          : "The board has no lead now.",
        facts: { lead: set.lead ?? null, changed: set.changed },
      }));
    },
  );
}
