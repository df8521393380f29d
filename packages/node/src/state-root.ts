// The state root, muster's folder for everything it keeps on this machine (the teams, install
// records), and the cache root, for what can be thrown away (the CLI's compile cache). An entry of its own (`@muster/node/state-root`), so that a process start can find
// it before loading anything else (finding a team needs node:crypto and child_process).
import { homedir } from "node:os";
import path from "node:path";

/** The state root: MUSTER_HOME, else `${XDG_STATE_HOME:-~/.local/state}/muster`. */
export function stateRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MUSTER_HOME) return path.resolve(env.MUSTER_HOME);
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir();
  const state =
    env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME)
      ? env.XDG_STATE_HOME
      : path.join(home, ".local", "state");
  return path.join(state, "muster");
}

/** The cache root: `$MUSTER_HOME/cache` when MUSTER_HOME is set, else `${XDG_CACHE_HOME:-~/.cache}/muster`. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MUSTER_HOME) return path.join(path.resolve(env.MUSTER_HOME), "cache");
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir();
  const cache =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)
      ? env.XDG_CACHE_HOME
      : path.join(home, ".cache");
  return path.join(cache, "muster");
}
