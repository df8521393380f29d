// Node's compile cache for muster's own processes (every command, the hooks, the MCP server):
// the code V8 compiled is kept on disk in muster's cache folder (XDG's, never a config or state
// folder: it can be thrown away), so a start after the first
// skips compiling muster's code. Never in Node's default (a folder under /tmp that another user
// can make first): the folder must be this user's own and writable by nobody else, or there is no
// cache. NODE_DISABLE_COMPILE_CACHE=1 turns it off; NODE_COMPILE_CACHE names another folder.
import { lstatSync, mkdirSync } from "node:fs";
import module from "node:module";
import path from "node:path";
import { cacheRoot } from "@muster/node/state-root";

/** The cache's folder: `<cache root>/compile-cache` (`~/.cache/muster/compile-cache`). */
export const compileCacheFolder = (env: NodeJS.ProcessEnv) =>
  path.join(cacheRoot(env), "compile-cache");

export type CompileCacheAnswer = "enabled" | "off" | "unsafe-folder" | "no-folder";

/** Turn the cache on, when its folder is safe to use; whether it is on, or why not. */
export function enableCompileCache(env: NodeJS.ProcessEnv): CompileCacheAnswer {
  const folder = compileCacheFolder(env);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const facts = lstatSync(folder);
    const mine = facts.uid === process.getuid?.();
    // Compiled code is run as is: a folder another user can write would run their code in ours.
    if (!facts.isDirectory() || !mine || (facts.mode & 0o022) !== 0) return "unsafe-folder";
  } catch {
    return "no-folder";
  }
  const { ENABLED, ALREADY_ENABLED } = module.constants.compileCacheStatus;
  const status = module.enableCompileCache?.(folder).status;
  // Already on: NODE_COMPILE_CACHE named a folder. Off: NODE_DISABLE_COMPILE_CACHE, or it failed.
  return status === ENABLED || status === ALREADY_ENABLED ? "enabled" : "off";
}
