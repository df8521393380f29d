// A member's activity as every CLI view shows it (status, roster, send, the dashboard): core's
// `activityNow` over the record, with Claude Code's own session registry as the cross-check.
import { type ActivityReason, type ActivityState, activityNow } from "@muster/core";
import type { Member } from "@muster/roster";
import { activityFacts, claudeRegistry } from "@muster/wiring";

/** The activity as `--json` carries it: the state, for how long, by which signal, and why. */
export type ActivityJson = {
  state: ActivityState;
  /** How long it has been in this state; null when that is not known. */
  ageMs: number | null;
  signal: string | null;
  reason: ActivityReason;
};

/** The member's activity as far as core believes it now (with Claude Code's registry's word). */
export function activityView(member: Member, now: number, env: NodeJS.ProcessEnv): ActivityJson {
  const view = activityNow(activityFacts(member, claudeRegistry(member, env)), now);
  return {
    state: view.state,
    ageMs: view.since === undefined ? null : Math.max(0, now - view.since),
    signal: view.signal ?? null,
    reason: view.reason,
  };
}
