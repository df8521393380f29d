// The filesystem the roster is given, typed structurally, and the primitives every file goes
// through: a whole-file replace (temp + rename), an exclusive create (temp + link), and the check
// that a folder is a real folder of this user before the roster reads or writes inside it.

import { codedError, errorCode } from "./_error.js";
import { uniqueName } from "./_unique.js";

export { codedError, errorCode, errorText } from "./_error.js";
export { uniqueName } from "./_unique.js";

/** What `stat`/`lstat` must tell. `uid` and `mode` may be absent where the filesystem has no owners. */
export type FileFacts = {
  isDirectory: boolean;
  isSymbolicLink?: boolean | undefined;
  /** A regular file (absent: unknown). */
  isFile?: boolean | undefined;
  uid?: number | undefined;
  /** Permission bits, with the sticky bit (0o1000) where the platform has one. */
  mode?: number | undefined;
  mtimeMs: number;
  /** When the file's inode last changed (a rename sets it; nobody can set it back); absent: unknown. */
  ctimeMs?: number | undefined;
};

/**
 * The filesystem operations the roster needs. Failures throw errors carrying a Node-style `code`
 * (`ENOENT`, `EEXIST`, `ENOTEMPTY`, …), which is all the roster reads of them.
 */
export type RosterFs = {
  mkdir(path: string, mode: number): Promise<void>;
  /** Reads a regular file; never follows a symlink in the last part, fails on anything else. */
  readFile(path: string): Promise<string>;
  /** Creates a new file exclusively: fails with `EEXIST` when anything (a symlink too) is there. */
  writeFile(path: string, data: string, mode: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** A hard link: fails with `EEXIST` when `to` exists. The exclusive create. */
  link(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  /** Removes a folder and everything in it; no error when it is absent. */
  removeTree(path: string): Promise<void>;
  /** Removes an empty folder (`ENOTEMPTY` otherwise). Where absent, prune uses `removeTree`. */
  rmdir?: ((path: string) => Promise<void>) | undefined;
  stat(path: string): Promise<FileFacts>;
  lstat(path: string): Promise<FileFacts>;
  /** The uid this process runs as, where the platform has one. */
  ownUid?: (() => number | undefined) | undefined;
};

export const FOLDER_MODE = 0o700;
export const FILE_MODE = 0o600;

/** Temp files start with a dot and end in `.tmp`, so every reader skips them and prune clears them. */
export const isTempName = (name: string) => name.startsWith(".") && name.endsWith(".tmp");

/** Exactly the temp names `tempBeside` makes (`.<time>-<counter>-<random>.tmp`): what prune may clear. */
export const isOwnTempName = (name: string) =>
  /^\.[0-9a-z]{1,12}-[0-9a-z]{4}-[0-9a-z]{12}\.tmp$/.test(name);

/**
 * Where a takeover moves the claim it judged while it creates its own (`displacedBeside`): one name
 * per key, so the creator that wins the key in that moment finds what it replaced.
 */
export const isDisplacedName = (name: string) =>
  /^\.[0-9A-Za-z][0-9A-Za-z._-]{0,160}\.displaced\.tmp$/.test(name);

/** The displaced name of the file at `path` (`labels/lead.json` → `labels/.lead.json.displaced.tmp`). */
export function displacedBeside(path: string): string {
  const slash = path.lastIndexOf("/");
  return `${path.slice(0, slash)}/.${path.slice(slash + 1)}.displaced.tmp`;
}

/** A temp name in the same folder as `path`, so a rename or link from it stays on one filesystem. */
export function tempBeside(path: string, now: number): string {
  return `${path.slice(0, path.lastIndexOf("/"))}/.${uniqueName(now)}.tmp`;
}

/** Write a whole file: a reader sees the old content or the new, never half of either. */
export async function writeWhole(
  fs: RosterFs,
  path: string,
  data: string,
  now: number,
): Promise<void> {
  const temp = tempBeside(path, now);
  await fs.writeFile(temp, data, FILE_MODE);
  try {
    await fs.rename(temp, path);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Create a whole file only if nothing is at `path`: true when created, false when it existed. */
export async function createExclusive(
  fs: RosterFs,
  path: string,
  data: string,
  now: number,
): Promise<boolean> {
  const temp = tempBeside(path, now);
  await fs.writeFile(temp, data, FILE_MODE);
  try {
    await fs.link(temp, path);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  } finally {
    await fs.unlink(temp).catch(() => undefined);
  }
}

/**
 * Throws `EUNSAFE` unless `path` is a real folder (not a symlink) owned by this user: the roster
 * never descends into a folder that could lead out of the team folder.
 */
export async function checkRealFolder(fs: RosterFs, path: string): Promise<void> {
  const facts = await fs.lstat(path);
  const ownUid = fs.ownUid?.();
  if (facts.isSymbolicLink) throw codedError("EUNSAFE", `${path} is a symlink, not a folder`);
  if (!facts.isDirectory) throw codedError("EUNSAFE", `${path} is not a folder`);
  if (facts.uid !== undefined && ownUid !== undefined && facts.uid !== ownUid)
    throw codedError("EUNSAFE", `${path} belongs to uid ${facts.uid}, not to you`);
}

/**
 * Create each folder (mode 0700) that is not there yet; one that is there must be a real folder.
 * Looked at first: a team's folders are there at nearly every open (each short-lived start), and
 * a mkdir refused with EEXIST costs Node a thrown error per folder.
 */
export async function ensureFolders(fs: RosterFs, folders: readonly string[]): Promise<void> {
  for (const folder of folders) {
    try {
      await checkRealFolder(fs, folder);
      continue;
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
    }
    try {
      await fs.mkdir(folder, FOLDER_MODE);
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
      await checkRealFolder(fs, folder);
    }
  }
}

/** Read a file, or undefined when it is not there. Other failures throw. */
export async function readIfPresent(fs: RosterFs, path: string): Promise<string | undefined> {
  try {
    return await fs.readFile(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

export async function unlinkIfPresent(fs: RosterFs, path: string): Promise<boolean> {
  try {
    await fs.unlink(path);
    return true;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw error;
  }
}

/** The names in a real folder of this user; none when it is absent. A symlink throws `EUNSAFE`. */
export async function listFolder(fs: RosterFs, path: string): Promise<string[]> {
  try {
    await checkRealFolder(fs, path);
    return await fs.readdir(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return [];
    throw error;
  }
}
