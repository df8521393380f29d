// The board's lead: a label that hears of cards finished, dropped, released and blocked. Anyone may
// name a lead while there is none or the lead has no live holder; after that only the lead passes
// it on (or clears it). The lead is a label, so a new session joining under it is the lead.
import { type BoardActor, sameLabel } from "./_board-card.js";
import type { BoardRefusal } from "./_board-decision.js";
import { type BoardMembers, liveHolder, liveLabels } from "./_board-members.js";
import { withSuggestion } from "./_suggest.js";

/** The words that clear the lead rather than name one. */
export const NO_LEAD = ["none", "-"] as const;

export type LeadDecision =
  | { ok: true; lead: string | undefined; changed: boolean }
  | Omit<BoardRefusal, "notices">;

/**
 * Whether `actor` may make `to` the lead (`none` clears it), given the lead now. The new lead
 * must be a label with a live holder, so notices always have somewhere to go.
 */
export function decideLead(
  current: string | undefined,
  actor: BoardActor,
  to: string,
  members: BoardMembers,
): LeadDecision {
  const clearing = (NO_LEAD as readonly string[]).includes(to.trim().toLowerCase());
  if (members === "unknown") {
    return {
      ok: false,
      reason: "members-unknown",
      error: "the roster cannot be read, so the lead cannot be checked",
      fix: "check the team folder, then try again",
    };
  }
  if (
    current !== undefined &&
    !sameLabel(current, actor.label) &&
    liveHolder(members, current) !== undefined
  ) {
    return {
      ok: false,
      reason: "lead-held",
      error: `the lead is ${current}, a live member`,
      fix: `ask ${current} to pass the lead on, or wait until ${current} leaves the team`,
      holder: current,
    };
  }
  if (clearing) return { ok: true, lead: undefined, changed: current !== undefined };
  const holder = liveHolder(members, to.trim());
  if (!holder) {
    return withSuggestion(
      {
        ok: false as const,
        reason: "no-live-holder" as const,
        error: `no live member holds the label "${to.trim()}"`,
        fix: "name a member that is on the team now as the lead",
      },
      to.trim(),
      liveLabels(members),
    );
  }
  return { ok: true, lead: holder.label, changed: !sameLabel(current, holder.label) };
}
