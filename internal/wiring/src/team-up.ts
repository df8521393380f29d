// `muster up`: bring the team muster.toml declares up. Not yet built: the entry point's shape is
// fixed here so the dashboard calls the same code the CLI does.
import type { TeamEffects, TeamUp, TeamUpRequest } from "./team-up-types.ts";

/** Bring every declared member that is not live up: resumed where a session is recorded. */
export async function teamUp(_request: TeamUpRequest, _effects: TeamEffects): Promise<TeamUp> {
  return { ok: false, reason: "not-built", error: "muster up is not built yet" };
}
