// The real filesystem and process facts for the roster's real-filesystem tests. @muster/node holds
// the published adapters; the roster cannot depend on it (a leaf), so its tests keep this copy-free
// thin shim over node:fs and /proc.
import { readdirSync, readFileSync } from "node:fs";
import * as fs from "node:fs/promises";
import type { ProcessFact, RosterFs } from "../src/index.js";

export const nodeFs: RosterFs = {
  mkdir: async (path, mode) => {
    await fs.mkdir(path, { mode });
  },
  // Small files read synchronously: ~10x faster than fs.promises for a team of 1,000 (pnpm bench).
  readFile: async (path) => readFileSync(path, "utf8"),
  writeFile: (path, data, mode) => fs.writeFile(path, data, { mode, flag: "w" }),
  rename: (from, to) => fs.rename(from, to),
  link: (from, to) => fs.link(from, to),
  unlink: (path) => fs.unlink(path),
  readdir: async (path) => readdirSync(path),
  removeTree: (path) => fs.rm(path, { recursive: true, force: true }),
  stat: async (path) => {
    const facts = await fs.stat(path);
    return {
      isDirectory: facts.isDirectory(),
      uid: facts.uid,
      mode: facts.mode & 0o777,
      mtimeMs: facts.mtimeMs,
    };
  },
  lstat: async (path) => {
    const facts = await fs.lstat(path);
    return {
      isDirectory: facts.isDirectory(),
      isSymbolicLink: facts.isSymbolicLink(),
      uid: facts.uid,
      mode: facts.mode & 0o777,
      mtimeMs: facts.mtimeMs,
    };
  },
  ownUid: () => process.getuid?.(),
};

/** The start time of a process in clock ticks since boot (field 22 of /proc/<pid>/stat). */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

export const procFacts = {
  alive(pid: number, pidStart: string | undefined): ProcessFact {
    const start = processStart(pid);
    if (start === undefined) return "dead";
    return pidStart === undefined || pidStart === start ? "alive" : "dead";
  },
};
