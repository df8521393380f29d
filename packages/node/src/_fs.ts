// The roster's filesystem on Node: the RosterFs shape of @muster/roster, met structurally so this
// package depends on no leaf. Every operation on one small file or one folder entry is synchronous
// (wrapped in a promise for the shape): roster files are small and local, and a call through
// fs.promises costs a thread-pool hand-off each. Reading a team of 1,000 records went 146 ms → 52 ms
// (`pnpm bench roster`); a prune over 3,000 receipt folders 320 ms → 75 ms, and a join, heartbeat
// and leave 8.9 ms → 5.0 ms, measured side by side in one run. Only removing a whole tree, which
// may be large, stays asynchronous.
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import * as fs from "node:fs/promises";

export type FileFacts = {
  isDirectory: boolean;
  isSymbolicLink?: boolean;
  isFile?: boolean;
  uid?: number;
  mode?: number;
  mtimeMs: number;
  ctimeMs?: number;
};

const facts = (stats: import("node:fs").Stats): FileFacts => ({
  isDirectory: stats.isDirectory(),
  isSymbolicLink: stats.isSymbolicLink(),
  isFile: stats.isFile(),
  uid: stats.uid,
  // With the sticky bit: a shared sticky folder (/tmp) is told apart from a merely loose one.
  mode: stats.mode & 0o7777,
  mtimeMs: stats.mtimeMs,
  ctimeMs: stats.ctimeMs,
});

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Read a regular file, never through a symlink in the last part (ELOOP) and never blocking on a
 * FIFO planted under a roster name (opened non-blocking, then refused as not a regular file). Every
 * reader of a file another process can plant (the roster, the spawn records) reads through this.
 */
export function readRegularFile(path: string): string {
  const descriptor = openSync(path, READ_FLAGS);
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) {
      const code = stats.isDirectory() ? "EISDIR" : "EINVAL";
      throw Object.assign(new Error(`${code}: not a regular file: ${path}`), { code });
    }
    return readFileSync(descriptor, "utf8");
  } finally {
    closeSync(descriptor);
  }
}

/** The filesystem adapter `openRoster({ fs })` takes. Folders are created with every parent. */
export const nodeFs = {
  mkdir: async (path: string, mode: number): Promise<void> => {
    const parent = path.slice(0, path.lastIndexOf("/"));
    if (parent) mkdirSync(parent, { recursive: true, mode });
    mkdirSync(path, { mode });
  },
  readFile: async (path: string): Promise<string> => readRegularFile(path),
  /** Creates a new file only: a symlink or anything else planted there fails with EEXIST. */
  writeFile: async (path: string, data: string, mode: number): Promise<void> =>
    writeFileSync(path, data, { mode, flag: "wx" }),
  rename: async (from: string, to: string): Promise<void> => renameSync(from, to),
  link: async (from: string, to: string): Promise<void> => linkSync(from, to),
  unlink: async (path: string): Promise<void> => unlinkSync(path),
  readdir: async (path: string): Promise<string[]> => readdirSync(path),
  removeTree: (path: string): Promise<void> => fs.rm(path, { recursive: true, force: true }),
  rmdir: async (path: string): Promise<void> => rmdirSync(path),
  stat: async (path: string): Promise<FileFacts> => facts(statSync(path)),
  lstat: async (path: string): Promise<FileFacts> => facts(lstatSync(path)),
  ownUid: (): number | undefined => process.getuid?.(),
};

/**
 * The wait `openRoster({ sleep })` takes between tries for a lock another process holds briefly.
 * Without it the roster only yields, and its tries pass in a few milliseconds: a holder that
 * is slow but alive then looks like one that cannot be waited for.
 */
export const nodeSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
