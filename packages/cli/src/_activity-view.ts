// A member's activity as every CLI view shows it (status, roster, send, the dashboard): core's
// the wiring's `memberActivity` (every door's one view), with how long and why for --json.
import type { ActivityReason, ActivityState } from "@muster/core";
import type { Member } from "@muster/roster";
import { memberActivity } from "@muster/wiring";

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
  const view = memberActivity(member, now, env);
  return {
    state: view.state,
    ageMs: view.since === undefined ? null : Math.max(0, now - view.since),
    signal: view.signal ?? null,
    reason: view.reason,
  };
}
