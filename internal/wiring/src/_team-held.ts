// The labels kept for declared members that are down, as the roster asks for them (a join under
// one is refused, a send to one kept): core's downMembers over the team file and this host's spawn
// records. Read only when a record says down, so a team that never ran `muster down` pays one
// listing of its spawn records.
import { type DownMember, downMembers } from "@muster/core";
import { readSpawnRecords } from "./spawn-records.ts";
import { readTeamFile } from "./team-file.ts";

/** The down members of the team whose spawn records are in `dir()`; none when it cannot tell. */
export function downHeld(options: {
  cwd?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  dir: () => Promise<string>;
}): () => Promise<DownMember[]> {
  return async () => {
    try {
      const { records } = await readSpawnRecords({ dir: await options.dir() });
      if (!records.some((record) => record.down !== undefined)) return [];
      const team = await readTeamFile({ cwd: options.cwd ?? process.cwd(), env: options.env });
      return team.ok ? downMembers(team.members, records) : [];
    } catch {
      return [];
    }
  };
}
