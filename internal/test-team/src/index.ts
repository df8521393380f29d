// A team for tests and benchmarks that drive real engines: the team folder opened as every
// composer opens it, and a peer joined as the test's own process (kept live by that process, as a
// Codex or Claude Code member is). Apart from @muster/test-support, which the leaves' own tests
// use and which therefore imports no muster package.
import type { Roster } from "@muster/roster";
import { openTeam } from "@muster/wiring";

/** The roster in `dir`, opened with Node's effects; a refusal throws. */
export async function openTestTeam(dir: string): Promise<Roster> {
  const opened = await openTeam({ dir });
  if (!opened.ok) throw new Error(opened.error);
  return opened.roster;
}

export type { LandRepo } from "./land-repo.ts";
export { GIT_IDENTITY, makeLandRepo, restoreGitIdentity } from "./land-repo.ts";
export { joinAsThisProcess } from "./peer.ts";
export type { SendRow } from "./send-table.ts";
export { expectedCounts, joinSendPeers, mailCounts, SEND_PEERS, SEND_TABLE } from "./send-table.ts";
