// A peer joined as the test's own process: kept live by that process, as a Codex or Claude Code
// member is.
import { processStart } from "@muster/node";
import type { Roster } from "@muster/roster";

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
