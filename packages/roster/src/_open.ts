// Opening a team folder: create it where needed, and refuse one that another user could tamper
// with, before any step of the roster reads or writes inside it.
import {
  ensureFolders,
  errorCode,
  errorText,
  type FileFacts,
  FOLDER_MODE,
  type RosterFs,
} from "./_fs.js";
import { teamLayout } from "./_layout.js";
import { DEFAULT_POLICY, type ProcessFacts, type RosterPolicy } from "./_liveness.js";
import { Roster } from "./_roster.js";

export type RosterOptions = {
  dir: string;
  fs: RosterFs;
  /** Milliseconds since the epoch. */
  clock: () => number;
  processes: ProcessFacts;
  policy?: Partial<RosterPolicy> | undefined;
  /** Waits (for a lock another process holds briefly); without it the roster only yields. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
};

export type OpenResult =
  | { ok: true; roster: Roster }
  | { ok: false; reason: "unsafe-folder" | "unwritable"; error: string };

const refuse = (reason: "unsafe-folder" | "unwritable", error: string): OpenResult => ({
  ok: false,
  reason,
  error,
});

/** Why `facts` make the folder unsafe to use as a team folder, or undefined. */
function unsafeBecause(dir: string, facts: FileFacts, ownUid: number | undefined) {
  if (!facts.isDirectory)
    return `the team folder ${dir} is not a folder; remove it or set MUSTER_TEAM_DIR`;
  if (facts.uid !== undefined && ownUid !== undefined && facts.uid !== ownUid)
    return `the team folder ${dir} belongs to uid ${facts.uid}, not you (uid ${ownUid}); use a folder you own (MUSTER_TEAM_DIR)`;
  if (facts.mode !== undefined && (facts.mode & 0o022) !== 0)
    return `the team folder ${dir} is writable by group or others; run chmod 700 ${dir}`;
  return undefined;
}

/** Open (creating where needed) a team folder, refusing one that another user could tamper with. */
export async function openRoster(options: RosterOptions): Promise<OpenResult> {
  const { dir, fs } = options;
  try {
    await fs.mkdir(dir, FOLDER_MODE);
  } catch (error) {
    if (errorCode(error) !== "EEXIST")
      return refuse("unwritable", `cannot create the team folder ${dir}: ${errorText(error)}`);
  }
  let facts: FileFacts;
  try {
    facts = await fs.stat(dir);
  } catch (error) {
    return refuse("unwritable", `cannot read the team folder ${dir}: ${errorText(error)}`);
  }
  const unsafe = unsafeBecause(dir, facts, fs.ownUid?.());
  if (unsafe) return refuse("unsafe-folder", unsafe);
  const paths = teamLayout(dir);
  try {
    await ensureFolders(fs, paths.folders);
  } catch (error) {
    return refuse("unwritable", `cannot write the team folder ${dir}: ${errorText(error)}`);
  }
  const sleep = options.sleep ?? (() => Promise.resolve());
  const policy = { ...DEFAULT_POLICY, ...options.policy };
  return {
    ok: true,
    roster: new Roster({
      paths,
      fs,
      clock: options.clock,
      processes: options.processes,
      policy,
      sleep,
    }),
  };
}
