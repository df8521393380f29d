// The declared members (and those `muster down` took down) that are not on the team now, as
// `status`, `status --json` and the dashboard list them: core's absentMembers over muster.toml and
// the spawn records, each with what brings it back (core's bringBack).
import { absentMembers, bringBack, printable } from "@muster/core";
import { readSpawnRecords, readTeamFile } from "@muster/wiring";
import type { Context } from "./_context.js";
import { age } from "./_render.js";

/** A member that is down: since when (null where that is not known), and what brings it back. */
export type DownView = { label: string; engine: string; ageMs: number | null; fix: string };

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

/** A line per member that is down: `  bob (pi) is down — muster up bob brings it back`. */
export const downLines = (down: readonly DownView[]) =>
  down.map(
    (member) =>
      `  ${printable(member.label)} (${printable(member.engine)}) is down${member.ageMs === null ? "" : ` since ${age(member.ageMs)} ago`} — ${printable(member.fix)}`,
  );
