// The changes to one card for MCP engines: team_claim, team_done, team_drop, team_handoff and
// team_ask, and the board's lead (team_lead). Each is a call into the shared board wiring; these
// rows word the answers.
import { askAboutCard, changeCard, setLead, teamBoard } from "@muster/wiring";
import * as z from "zod";
import { answered, CARD, seated } from "./_board-text.js";
import { clean } from "./_mail-text.js";
import { type Call, EDIT, tool } from "./_tool.js";

type Changed = { id: string; title: string; owner?: { label: string } | undefined };

/** One change to a card, and its answer: what `said` makes of the card, then its title. */
async function change(
  call: Call,
  verb: string,
  request: Parameters<typeof changeCard>[2],
  said: (card: Changed, changed: boolean) => string,
) {
  const seat = await seated(call, verb);
  if ("content" in seat) return seat;
  const outcome = await changeCard(teamBoard(seat.roster), seat.actor, request);
  return answered(seat.standpoint, verb, outcome, ({ decision }) => ({
    text: `${said(decision.card, decision.changed)}: ${clean(decision.card.title)}`,
    facts: { changed: decision.changed, card: decision.card },
  }));
}

export const BOARD_CHANGE_TOOLS = [
  tool({
    name: "team_claim",
    title: "Claim a card",
    description:
      "Claim a card on the team's board before you start working on it, so no teammate starts the same work: of several agents claiming one card at once, exactly one gets it, and the others are told who holds it. A card whose dependencies are unfinished cannot be claimed yet (the answer names them). When you are done, call team_done; if you stop, team_drop or team_handoff.",
    input: { card: CARD },
    annotations: EDIT,
    serves: { "board-claim": true },
    run: (args, call) =>
      change(call, "claimed", { kind: "claim", card: args.card }, (card, changed) =>
        changed ? `Claimed ${card.id}` : `You already hold ${card.id}`,
      ),
  }),
  tool({
    name: "team_done",
    title: "Finish a card",
    description:
      "Mark a card you hold as done, with a short note of what was done (a commit, a PR, where the result is). The board's lead is told. Only the card's holder can finish it.",
    input: {
      card: CARD,
      note: z.string().optional().describe("What was done, e.g. a commit id or PR"),
    },
    annotations: EDIT,
    serves: { "board-done": true },
    run: (args, call) =>
      change(
        call,
        "finished",
        { kind: "done", card: args.card, note: args.note },
        (card) => `Finished ${card.id}; the lead is told`,
      ),
  }),
  tool({
    name: "team_drop",
    title: "Drop a card",
    description:
      "Give a card you hold back to the board, open for anyone to claim, with the reason you stopped (blocked, out of scope, no time). The board's lead is told. To pass it to a particular teammate instead, use team_handoff.",
    input: {
      card: CARD,
      reason: z.string().describe("Why you are giving it back, for whoever picks it up"),
    },
    annotations: EDIT,
    serves: { "board-drop": true },
    run: (args, call) =>
      change(
        call,
        "dropped",
        { kind: "drop", card: args.card, reason: args.reason },
        (card) => `Dropped ${card.id} back to open`,
      ),
  }),
  tool({
    name: "team_handoff",
    title: "Hand off a card",
    description:
      "Pass a card you hold to another live member of the team by label (see team_roster), with a message saying what they need to carry on; they become its holder at once and get mail naming the card.",
    input: {
      card: CARD,
      to: z.string().max(64).describe("The new holder's label"),
      message: z.string().optional().describe("What they need to know to carry on"),
    },
    annotations: EDIT,
    serves: { "board-handoff": true },
    run: (args, call) =>
      change(
        call,
        "handed off",
        { kind: "handoff", card: args.card, to: args.to, message: args.message },
        (card) =>
          `Handed ${card.id} to ${clean(card.owner?.label ?? "?")}; they have mail about it`,
      ),
  }),
  tool({
    name: "team_ask",
    title: "Ask about a card",
    description:
      "Ask a question about a card: it goes as team mail to the card's holder, or to its creator when nobody holds it, naming the card. The answer comes back as mail (team_inbox). Use it before claiming a card whose title leaves you unsure what is wanted.",
    input: {
      card: CARD,
      question: z.string().describe("What you want to know, self-contained"),
    },
    annotations: EDIT,
    serves: { "board-ask": true },
    async run(args, call) {
      const seat = await seated(call, "asked");
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
  }),
  tool({
    name: "team_lead",
    title: "The board's lead",
    description:
      'Name the board\'s lead: the member (by label) told when a card is finished, dropped, released because its holder died, or cannot be claimed because it is blocked. "none" clears it. Anyone may name a lead while there is none or the lead has left; after that only the lead passes it on.',
    input: {
      to: z.string().max(64).describe('The new lead\'s label, or "none"'),
    },
    annotations: EDIT,
    serves: { "board-lead": true },
    async run(args, call) {
      const seat = await seated(call, "set");
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
  }),
];
