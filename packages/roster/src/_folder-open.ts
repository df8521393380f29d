// Opening a team folder: create it where needed, and refuse one that another user could tamper
// with, before any step of the roster reads or writes inside it.

import { folderStore } from "./_folder-store.js";
import {
  ensureFolders,
  errorCode,
  errorText,
  FILE_MODE,
  type FileFacts,
  FOLDER_MODE,
  type RosterFs,
} from "./_fs.js";
import { type Layout, MARKER_NAME, teamLayout } from "./_layout.js";
import type { RosterStore } from "./_store.js";
import { iso } from "./_team.js";

export type OpenRefusal = "unsafe-folder" | "not-a-team" | "unwritable";

export type FolderOpened =
  | { ok: true; store: RosterStore }
  | { ok: false; reason: OpenRefusal; error: string; fix: string };

/** What happened and what to do, apart: each check below says both. */
type Problem = { error: string; fix: string };

const refuse = (reason: OpenRefusal, problem: Problem): FolderOpened => ({
  ok: false,
  reason,
  ...problem,
});

/** The fix for a folder muster cannot create, read or write. */
const UNWRITABLE_FIX =
  "check its permissions and free space, or use another folder (MUSTER_TEAM_DIR)";

const STICKY = 0o1000;

/** Why `facts` make the folder unsafe to use as a team folder, or undefined. */
function unsafeBecause(
  dir: string,
  facts: FileFacts,
  ownUid: number | undefined,
): Problem | undefined {
  if (!facts.isDirectory)
    return {
      error: `the team folder ${dir} is not a folder`,
      fix: "remove it or set MUSTER_TEAM_DIR",
    };
  if (facts.mode !== undefined && (facts.mode & STICKY) !== 0 && (facts.mode & 0o002) !== 0)
    return {
      error: `the team folder ${dir} is a shared folder (sticky, writable by everyone)`,
      fix: `use a folder of your own inside it (mkdir -m 700 ${dir}/muster-team, then MUSTER_TEAM_DIR=${dir}/muster-team)`,
    };
  if (facts.uid !== undefined && ownUid !== undefined && facts.uid !== ownUid)
    return {
      error: `the team folder ${dir} belongs to uid ${facts.uid}, not you (uid ${ownUid})`,
      fix: "use a folder you own (MUSTER_TEAM_DIR)",
    };
  if (facts.mode !== undefined && (facts.mode & 0o022) !== 0)
    return {
      error: `the team folder ${dir} is writable by group or others`,
      fix: `run chmod 700 ${dir}`,
    };
  return undefined;
}

/**
 * A symlink on the way to the team folder that another user owns could be pointed anywhere at
 * any time (a link planted in a sticky /tmp): refuse it. Links owned by you or by root are fine.
 */
async function borrowedLink(
  fs: RosterFs,
  dir: string,
  ownUid: number | undefined,
): Promise<Problem | undefined> {
  if (ownUid === undefined) return undefined;
  const parts = dir.split("/");
  for (let end = 1; end <= parts.length; end += 1) {
    const prefix = parts.slice(0, end).join("/");
    if (prefix === "" || parts[end - 1] === "") continue;
    const facts = await fs.lstat(prefix).catch(() => undefined);
    if (!facts) return undefined; // the rest is created by us
    if (facts.isSymbolicLink && facts.uid !== undefined && facts.uid !== ownUid && facts.uid !== 0)
      return {
        error: `the team folder ${dir} is reached through ${prefix}, a symlink owned by uid ${facts.uid}, not you`,
        fix: "use a path without it (MUSTER_TEAM_DIR)",
      };
  }
  return undefined;
}

/**
 * Make sure `dir` is a team folder: one with the marker, or a new or empty folder (marked now).
 * A folder with files and no marker is somebody's folder: nothing in it is touched. The marker is
 * the first thing written in a new team folder (directly, no temp file beside it), so an opener
 * racing the creator sees either an empty folder or the marker: its existence is the mark.
 */
async function markTeam(fs: RosterFs, paths: Layout, now: number): Promise<Problem | undefined> {
  const marker = await fs.lstat(paths.marker).catch(() => undefined);
  if (marker) {
    if (marker.isDirectory || marker.isSymbolicLink)
      return {
        error: `${paths.marker} is not a muster team marker`,
        fix: "use another folder (MUSTER_TEAM_DIR)",
      };
    return undefined;
  }
  const names = await fs.readdir(paths.dir);
  if (names.length > 0 && !names.includes(MARKER_NAME))
    return {
      error: `${paths.dir} is not a muster team folder (it holds files and no ${MARKER_NAME})`,
      fix: "use a new or empty folder (MUSTER_TEAM_DIR)",
    };
  const text = `${JSON.stringify({ v: 1, muster: "team", createdAt: iso(now) })}\n`;
  await fs.writeFile(paths.marker, text, FILE_MODE).catch((error: unknown) => {
    if (errorCode(error) !== "EEXIST") throw error; // another opener marked it first
  });
  return undefined;
}

/**
 * Open (creating where needed) a team folder as a store, refusing one that another user could
 * tamper with.
 */
export async function openFolderStore(options: {
  dir: string;
  fs: RosterFs;
  /** Milliseconds since the epoch. */
  clock: () => number;
}): Promise<FolderOpened> {
  const { dir, fs } = options;
  const ownUid = fs.ownUid?.();
  const borrowed = await borrowedLink(fs, dir, ownUid);
  if (borrowed) return refuse("unsafe-folder", borrowed);
  try {
    await fs.mkdir(dir, FOLDER_MODE);
  } catch (error) {
    if (errorCode(error) !== "EEXIST")
      return refuse("unwritable", {
        error: `cannot create the team folder ${dir}: ${errorText(error)}`,
        fix: UNWRITABLE_FIX,
      });
  }
  let facts: FileFacts;
  try {
    facts = await fs.stat(dir);
  } catch (error) {
    return refuse("unwritable", {
      error: `cannot read the team folder ${dir}: ${errorText(error)}`,
      fix: UNWRITABLE_FIX,
    });
  }
  const unsafe = unsafeBecause(dir, facts, ownUid);
  if (unsafe) return refuse("unsafe-folder", unsafe);
  const paths = teamLayout(dir);
  try {
    const notTeam = await markTeam(fs, paths, options.clock());
    if (notTeam) return refuse("not-a-team", notTeam);
    await ensureFolders(fs, paths.folders);
  } catch (error) {
    return refuse("unwritable", {
      error: `cannot write the team folder ${dir}: ${errorText(error)}`,
      fix: UNWRITABLE_FIX,
    });
  }
  return { ok: true, store: folderStore(fs, paths, options.clock) };
}
