// Opening a team's roster with Node's effects: the store the team is on (its folder, named exactly
// or found from the repository, or the NATS server the team is configured for), the clock,
// process liveness and a real wait for a lock held briefly by another process. Every composer
// opens it here, and none knows which store it got. A NATS connection stays open until
// `closeTeams()`: a command calls it when it ends, or the connection would keep the process alive.
// An open is under way for the process's end to wait for, and one that lands after the end
// closed the teams is closed at once (see lifetime.ts).
import path from "node:path";
import { findTeamFolder, nodeFs, nodeSleep, processFacts, type TeamFolder } from "@muster/node";
import { openRoster, type Roster, type RosterPolicy } from "@muster/roster";
import { inFlight, keepOpen, teamsClosed } from "./lifetime.ts";
import { chooseStore } from "./team-store.ts";

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
  /** How this roster judges liveness (default: the roster's): a test's short TTL. */
  policy?: Partial<RosterPolicy> | undefined;
};

/** A team opened, or why not with what to do: the folder's refusals, or the NATS server's. */
export type TeamOpened =
  | { ok: true; roster: Roster }
  | { ok: false; reason: string; error: string; fix: string };

/** The folder named exactly (a reopen, `--team-dir`, MUSTER_TEAM_DIR), which needs no question to git. */
function namedDir(options: OpenTeamOptions): string | undefined {
  if (options.dir !== undefined) return options.dir;
  const named = options.teamDir ?? (options.env ?? process.env).MUSTER_TEAM_DIR;
  return named ? path.resolve(options.cwd ?? process.cwd(), named) : undefined;
}

/** The folder a team's roster lives in (on NATS too: spawn records and tmux seats stay local). */
export async function teamDir(options: OpenTeamOptions = {}): Promise<string> {
  const named = namedDir(options);
  if (named !== undefined) return named;
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const folder = await (options.folder ?? (() => findTeamFolder({ cwd, env })))();
  return folder.dir;
}

/** The refusal of an open once the process's end has closed its teams. */
const ENDED = {
  ok: false,
  reason: "ending",
  error: "this process is ending and has closed its team",
  fix: "nothing to do: run the command again if it is still needed",
} as const;

/**
 * The labels kept for declared members that are down (_team-held.ts), loaded only when the roster
 * asks (a join, a prune, a send to a label nobody live holds): it reads the team file.
 */
const downHeld = (options: OpenTeamOptions, dir: () => Promise<string>) => async () =>
  (await import("./_team-held.js")).downHeld({ ...options, dir })();

const folderRoster = (dir: string, options: OpenTeamOptions) =>
  openRoster({
    dir,
    fs: nodeFs,
    clock: Date.now,
    processes: processFacts,
    sleep: nodeSleep,
    policy: options.policy,
    held: downHeld(options, async () => dir),
  });

/**
 * Open the team's roster. A folder named exactly is that folder; otherwise the repository's
 * configuration chooses (none: its folder). A refusal (an unsafe folder, a server that cannot be
 * reached, settings that do not hold) is a value; a working directory that does not exist
 * throws, as it is no team at all.
 */
export function openTeam(options: OpenTeamOptions = {}): Promise<TeamOpened> {
  if (teamsClosed()) return Promise.resolve(ENDED);
  return inFlight(openChosen(options));
}

async function openChosen(options: OpenTeamOptions): Promise<TeamOpened> {
  const named = namedDir(options);
  if (named !== undefined) return folderRoster(named, options);
  const chosen = await chooseStore(options);
  if (!chosen.ok) return chosen;
  if (chosen.store === "folder") return folderRoster(chosen.folder.dir, options);
  const { openNatsStore } = await import("@muster/nats");
  // A record keeps its label from another member's key as long as the roster keeps it live:
  // the same TTL, or a member past it would be expired to the roster yet its label still held.
  const opened = await openNatsStore(chosen.settings, chosen.team, {
    liveForMs: options.policy?.ttlMs,
  });
  if (!opened.ok) return opened;
  if (!keepOpen(opened.close)) return ENDED;
  return openRoster({
    store: opened.store,
    clock: Date.now,
    processes: processFacts,
    sleep: nodeSleep,
    policy: options.policy,
    // Spawn records stay on this host, in the repository's local folder.
    held: downHeld(options, () => teamDir(options)),
  });
}

/**
 * Where this host keeps what stays per host (spawn records): the team folder itself, or, for a
 * team on NATS, the repository's local folder (`roster.dir` names the NATS team, not a path).
 */
export async function hostFolder(roster: Roster, options: OpenTeamOptions = {}): Promise<string> {
  return roster.store.kind === "folder" ? roster.dir : teamDir(options);
}
