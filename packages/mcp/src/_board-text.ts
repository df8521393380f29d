// The task board as a model reads it: one line per card, one card in full, a refused change as one
// line, and a change's answer (text plus structured content). Every field another process wrote
// (titles, bodies, labels, notes) passes through core's `printable`; the structured content
// carries the same cards exactly.
import { type BoardActor, boardFailureLine, type ListedCard, printable } from "@muster/core";
import type { Roster } from "@muster/roster";
import type { BoardFailure, BoardOutcome } from "@muster/wiring";
import * as z from "zod";
import { clean } from "./_mail-text.js";
import { type Result, result, whoFacts, whoLine } from "./_result.js";
import type { Standpoint } from "./_team.js";
import type { Call } from "./_tool.js";

/** `c4 [held by bob] Fix the login redirect`. */
export function cardLine(card: ListedCard): string {
  const state =
    card.state === "held"
      ? `held by ${clean(card.owner?.label ?? "?")}`
      : card.state === "open" && card.blockers.length > 0
        ? `blocked by ${card.blockers.join(", ")}`
        : card.state;
  return `${card.id} [${state}] ${clean(card.title)}`;
}

/** The lead, then the cards a filter kept. */
export function cardsText(cards: readonly ListedCard[], lead: string | undefined): string {
  const head = lead ? `Lead: ${clean(lead)}.` : "No lead.";
  return [head, ...(cards.length > 0 ? cards.map(cardLine) : ["No cards here."])].join("\n");
}

/** One card with its body, dependencies, note and history. */
export function cardText(card: ListedCard): string {
  const lines = [cardLine(card), `Created by ${clean(card.createdBy)} at ${card.createdAt}.`];
  if (card.deps.length > 0) lines.push(`After: ${card.deps.join(", ")}.`);
  if (card.note) lines.push(`Note: ${clean(card.note)}`);
  if (card.body) lines.push("", printable(card.body, { lines: true }));
  lines.push("", "History:");
  for (const entry of card.history) {
    const to = entry.to ? ` → ${clean(entry.to)}` : "";
    const note = entry.note ? `: ${clean(entry.note)}` : "";
    lines.push(`- ${entry.at} ${entry.event} by ${clean(entry.by)}${to}${note}`);
  }
  return lines.join("\n");
}

/** `Not claimed: card c3 is held by bob; ask bob to hand it off, or claim an open card.` */
export const failureText = (verb: string, failure: Pick<BoardFailure, "error" | "fix">) =>
  `Not ${verb}: ${clean(boardFailureLine(failure))}`;

/** A refusal's facts for structured content. */
export const failureFacts = (failure: BoardFailure) => ({
  ok: false,
  reason: failure.reason,
  error: failure.error,
  fix: failure.fix,
  holder: failure.holder ?? null,
  blockers: failure.blockers ?? [],
});

/** Warnings (notices that could not be sent) as a trailing line, or nothing. */
export const warningsText = (warnings: readonly string[]) =>
  warnings.length > 0 ? `\n(${warnings.map(clean).join("; ")})` : "";

export type Member = Extract<Standpoint, { kind: "member" }>;
export type Seated = { roster: Roster; standpoint: Member; actor: BoardActor };

export const CARD = z.string().max(40).describe('The card id, e.g. "c4"');

/** "You joined the team as x." before an answer, when this call joined the caller. */
export const joinedLine = (standpoint: Standpoint) =>
  standpoint.kind === "member" && standpoint.joined ? `${whoLine(standpoint)}\n` : "";

/** The answer to a board change: its line, or its refusal. */
export function answered<Ok>(
  standpoint: Standpoint,
  verb: string,
  outcome: BoardOutcome<Ok & { warnings: string[] }>,
  said: (ok: Ok) => { text: string; facts: Record<string, unknown> },
): Result {
  if (!outcome.ok)
    return result(
      joinedLine(standpoint) + failureText(verb, outcome),
      { ...failureFacts(outcome), ...whoFacts(standpoint) },
      true,
    );
  const { text, facts } = said(outcome);
  return result(joinedLine(standpoint) + text + warningsText(outcome.warnings), {
    ok: true,
    ...facts,
    warnings: outcome.warnings,
    ...whoFacts(standpoint),
  });
}

/** A guest's refusal: a refused join says the join's own line and fix; any other guest, why. */
function notMember(verb: string, standpoint: Extract<Standpoint, { kind: "guest" }>): Result {
  const text =
    standpoint.cause === "join"
      ? `Not ${verb}: ${clean(standpoint.error)}`
      : `Not ${verb}: you are not on the team (${clean(standpoint.error)}), so you cannot change the board.`;
  return result(text, { ok: false, reason: "not-member", ...whoFacts(standpoint) }, true);
}

/**
 * The caller as a board actor, or its refusal. The caller has joined before (see _team.ts); a
 * guest reads the board but changes nothing, and a refused join is the change's refusal.
 */
export async function seated(call: Call, verb: string): Promise<Seated | Result> {
  const { roster, standpoint } = await call.begin();
  if (standpoint.kind === "guest") return notMember(verb, standpoint);
  return { roster, standpoint, actor: { label: standpoint.label, id: standpoint.caller.id } };
}
