// `muster down`: take the declared team's members down, keeping their sessions. Not yet built: the
// entry point's shape is fixed here so the dashboard calls the same code the CLI does.
import type { TeamDown, TeamDownRequest, TeamEffects } from "./team-up-types.ts";

/** Ask each member muster started to quit and close its pane; keep session, worktree, mail. */
export async function teamDown(
  _request: TeamDownRequest,
  _effects: TeamEffects,
): Promise<TeamDown> {
  return { ok: false, reason: "not-built", error: "muster down is not built yet" };
}
