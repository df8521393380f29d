// Where an engine keeps its sessions, as a process's environment says: what a member's record
// carries (`engineHome`) so that only a process of the same home wakes it from outside. Codex:
// CODEX_HOME, else ~/.codex. Other engines are woken through their own doors: no home.
import path from "node:path";

export function engineHome(engine: string, env: NodeJS.ProcessEnv): string | undefined {
  if (engine !== "codex") return undefined;
  if (env.CODEX_HOME) return path.resolve(env.CODEX_HOME);
  return env.HOME ? path.join(path.resolve(env.HOME), ".codex") : undefined;
}
