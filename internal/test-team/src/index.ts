// A team for tests and benchmarks that drive real engines: the team folder opened as every
// composer opens it, and a peer joined as the test's own process (kept live by that process, as a
// Codex or Claude Code member is). Apart from @muster/test-support, which the leaves' own tests
// use and which therefore imports no muster package.
import { processStart } from "@muster/node";
import type { Roster } from "@muster/roster";
import { openTeam } from "@muster/wiring";

/** The roster in `dir`, opened with Node's effects; a refusal throws. */
export async function openTestTeam(dir: string): Promise<Roster> {
  const opened = await openTeam({ dir });
  if (!opened.ok) throw new Error(opened.error);
  return opened.roster;
}

/** What every peer is: a pi member that listens without being woken, live while its process is. */
const PEER = {
  agent: "pi",
  watching: { armed: true, wake: false },
  liveness: "process",
} as const;

/** Join `label` as a peer with this process's pid and start time; returns the session id. */
export async function joinAsThisProcess(
  roster: Pick<Roster, "join">,
  label: string,
  id = `peer-${label}`,
): Promise<string> {
  const me = { pid: process.pid, pidStart: processStart(process.pid) };
  const joined = await roster.join({ ...PEER, ...me, id, label });
  if (!joined.ok) throw new Error(joined.error);
  return id;
}

export type { LandRepo } from "./land-repo.ts";
export { GIT_IDENTITY, makeLandRepo } from "./land-repo.ts";
