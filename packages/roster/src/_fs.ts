// The filesystem the roster is given, typed structurally, and the two write primitives every file
// goes through: a whole-file replace (temp name + rename) and an exclusive create (temp + link).
// Paths are POSIX strings joined here; nothing a caller passes reaches a path unvalidated.

/** What `stat` must tell. `uid` and `mode` may be absent where the filesystem has no owners. */
export type FileFacts = {
  isDirectory: boolean;
  isSymbolicLink?: boolean | undefined;
  uid?: number | undefined;
  mode?: number | undefined;
  mtimeMs: number;
};

/**
 * The filesystem operations the roster needs. Failures throw errors carrying a Node-style `code`
 * (`ENOENT`, `EEXIST`, `ENOTEMPTY`, …), which is all the roster reads of them.
 */
export type RosterFs = {
  mkdir(path: string, mode: number): Promise<void>;
  readFile(path: string): Promise<string>;
  writeFile(path: string, data: string, mode: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** A hard link: fails with `EEXIST` when `to` exists. The exclusive create. */
  link(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  /** Removes a folder and everything in it; no error when it is absent. */
  removeTree(path: string): Promise<void>;
  stat(path: string): Promise<FileFacts>;
  lstat(path: string): Promise<FileFacts>;
  /** The uid this process runs as, where the platform has one. */
  ownUid?: (() => number | undefined) | undefined;
};

export const FOLDER_MODE = 0o700;
export const FILE_MODE = 0o600;

export const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;

export const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

export const joinPath = (...parts: string[]) => parts.join("/").replace(/\/{2,}/g, "/");

/** A name unique enough for a temp file: the clock, the counter and a random part. */
let counter = 0;
export function uniqueName(now: number): string {
  counter = (counter + 1) % 1_679_616;
  const random = Math.floor(Math.random() * 2_176_782_336)
    .toString(36)
    .padStart(6, "0");
  return `${now.toString(36)}-${counter.toString(36).padStart(4, "0")}-${random}`;
}

/** Temp files start with a dot and end in `.tmp`, so every reader skips them and prune clears them. */
export const isTempName = (name: string) => name.startsWith(".") && name.endsWith(".tmp");

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

/** Create each folder (mode 0700) that is not there yet. */
export async function ensureFolders(fs: RosterFs, folders: readonly string[]): Promise<void> {
  for (const folder of folders) {
    await fs.mkdir(folder, FOLDER_MODE).catch((error: unknown) => {
      if (errorCode(error) !== "EEXIST") throw error;
    });
  }
}

/** A session's maildir: the mailbox and its tmp/, new/ and cur/. */
export const maildirFolders = (mailbox: string) => [
  mailbox,
  `${mailbox}/tmp`,
  `${mailbox}/new`,
  `${mailbox}/cur`,
];

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

export async function listIfPresent(fs: RosterFs, path: string): Promise<string[]> {
  try {
    return await fs.readdir(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return [];
    throw error;
  }
}
