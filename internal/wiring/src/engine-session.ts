// A member's engine session: the conversation `muster up` brings it back into. muster names pi's and
// Claude Code's at their start (a UUIDv7 it makes); a Codex names its thread at its first turn, and
// the thread is its member (`codex-<thread>`). Whether a recorded session is still there is read
// from the engine's own session files, under the home the engine runs with.
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { codexThreadOf } from "@muster/core";
import { namesSession } from "@muster/reconciler";

/** A new UUIDv7 (time-ordered, as pi names its own sessions). */
export function newSessionId(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The session a fresh start of `engine` is given, where muster names it. */
export const freshSession = (engine: string) =>
  namesSession(engine) ? { id: newSessionId(), resume: false } : undefined;

/** The engine session a joined member shows: a Codex member is its thread (core's `codexThreadOf`). */
export function sessionOfMember(engine: string, memberId: string): string | undefined {
  return engine === "codex" ? codexThreadOf(memberId) : undefined;
}

/** Where each engine keeps its session files (each named with its id), under the engine's home. */
function sessionFolder(engine: string, env: NodeJS.ProcessEnv): string | undefined {
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : undefined;
  const own = (variable: string | undefined, below: string, fallback: string) =>
    variable && path.isAbsolute(variable)
      ? path.join(variable, below)
      : home && path.join(home, fallback, below);
  if (engine === "pi")
    return env.PI_CODING_AGENT_SESSION_DIR && path.isAbsolute(env.PI_CODING_AGENT_SESSION_DIR)
      ? env.PI_CODING_AGENT_SESSION_DIR
      : own(env.PI_CODING_AGENT_DIR, "sessions", ".pi/agent");
  if (engine === "claude") return own(env.CLAUDE_CONFIG_DIR, "projects", ".claude");
  if (engine === "codex") return own(env.CODEX_HOME, "sessions", ".codex");
  return undefined;
}

/**
 * Whether the engine still has session `id` (a file named for it under the engine's home):
 * `undefined` when that cannot be told (an engine whose files muster does not know, no home).
 */
export function engineSessionExists(
  engine: string,
  id: string,
  env: NodeJS.ProcessEnv,
): boolean | undefined {
  const folder = sessionFolder(engine, env);
  if (!folder) return undefined;
  let names: string[];
  try {
    names = readdirSync(folder, { recursive: true, encoding: "utf8" });
  } catch {
    return false;
  }
  return names.some((name) => name.endsWith(`${id}.jsonl`));
}
