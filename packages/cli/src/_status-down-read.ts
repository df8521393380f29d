// The declared members (and those `muster down` took down) that are not on the team now: core's
// absentMembers over muster.toml and the spawn records, each with what brings it back (core's
// bringBack). Apart from _status-down.ts: muster.toml is read with smol-toml, which only the
// commands that read it carry.
import { absentMembers, bringBack } from "@muster/core";
import { readSpawnRecords, readTeamFile } from "@muster/wiring";
import type { Context } from "./_context.js";
import type { DownView } from "./_status-down.js";

/** The members that are down, each with its fix; none where muster.toml or the records cannot be read. */
export async function downList(
  context: Context,
  members: readonly { label: string; state: string }[],
): Promise<DownView[]> {
  const declared = await readTeamFile({ cwd: context.io.cwd, env: context.io.env }).catch(
    () => undefined,
  );
  const { records } = await readSpawnRecords(await context.team()).catch(() => ({ records: [] }));
  const now = Date.now();
  return absentMembers(declared?.ok ? declared.members : [], records, members).map((member) => ({
    label: member.label,
    engine: member.engine,
    ageMs: member.at === undefined ? null : Math.max(0, now - Date.parse(member.at)),
    fix: bringBack(member.label),
  }));
}
