// Whether a `muster hook codex notify` was run by Codex for the member its argument names. Codex
// runs notify as a child of the thread's own process (`codex --no-daemon`, `codex exec`) or, in
// daemon mode, of the app-server daemon of its home. Anything else that names a thread id (a tool
// an agent ran, a script) is not believed: it would mark a working member idle and trigger its wake
// sweep. The same kind of proof the Claude hooks make (ancestry), as a pure rule: the caller reads
// the process chain and each daemon's home.
import { isCodexDaemon } from "./_started-label.js";

/** One process of the notify's own chain, itself first; `home`: a daemon's Codex home, when read. */
export type ChainProcess = {
  pid: number;
  start: string;
  argv: readonly string[];
  home?: string | undefined;
};

/** The member the notify names, as its record says. */
export type NotifiedMember = {
  pid: number;
  pidStart?: string | undefined;
  place?: string | undefined;
  engineHome?: string | undefined;
};

export type NotifyOrigin =
  | { ok: true; via: "thread-process" | "daemon" }
  | { ok: false; reason: "elsewhere" | "not-under-codex" };

/**
 * Believed only from under the member's own process (pid and start time) or under a Codex daemon
 * of the member's home, on the member's host.
 */
export function notifyOrigin(
  member: NotifiedMember,
  herePlace: string | undefined,
  chain: readonly ChainProcess[],
): NotifyOrigin {
  if (member.place !== herePlace) return { ok: false, reason: "elsewhere" };
  for (const row of chain) {
    if (member.pidStart !== undefined && row.pid === member.pid && row.start === member.pidStart)
      return { ok: true, via: "thread-process" };
    if (
      isCodexDaemon(row) &&
      member.engineHome !== undefined &&
      row.home !== undefined &&
      row.home === member.engineHome
    )
      return { ok: true, via: "daemon" };
  }
  return { ok: false, reason: "not-under-codex" };
}
