// Opening a team's roster with Node's effects: the folder (named exactly, or found from the
// repository), the real filesystem, the clock, process liveness and a real wait for a lock held
// briefly by another process. Every composer opens it here.
import path from "node:path";
import { findTeamFolder, nodeFs, nodeSleep, processFacts, type TeamFolder } from "@muster/node";
import { type OpenResult, openRoster } from "@muster/roster";

export type OpenTeamOptions = {
  /** Open this folder as it is (a reopen of a roster already found). */
  dir?: string | undefined;
  /** Where the session works; a relative team folder is taken from here. Default: process.cwd(). */
  cwd?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  /** A folder named exactly (`--team-dir`); MUSTER_TEAM_DIR is the same from the environment. */
  teamDir?: string | undefined;
  /** Find the repository's team folder; a composer that also shows the team passes its own, once. */
  folder?: (() => Promise<TeamFolder>) | undefined;
};

/** The folder a team's roster lives in. A folder named exactly needs no question to git. */
export async function teamDir(options: OpenTeamOptions = {}): Promise<string> {
  if (options.dir !== undefined) return options.dir;
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const named = options.teamDir ?? env.MUSTER_TEAM_DIR;
  if (named) return path.resolve(cwd, named);
  const folder = await (options.folder ?? (() => findTeamFolder({ cwd, env })))();
  return folder.dir;
}

/**
 * Open the team's roster. A refusal (a folder that is unsafe or cannot be written) is a value; a
 * working directory that does not exist throws, as it is no team at all.
 */
export async function openTeam(options: OpenTeamOptions = {}): Promise<OpenResult> {
  return openRoster({
    dir: await teamDir(options),
    fs: nodeFs,
    clock: Date.now,
    processes: processFacts,
    sleep: nodeSleep,
  });
}
