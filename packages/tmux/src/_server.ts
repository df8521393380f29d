// Which tmux server: parse $TMUX and $TMUX_PANE, and build the arguments that address a server.
// Every invocation starts with `-u`: without it, tabs and non-ASCII come back as `_` under a C locale.

/**
 * The injected tmux runner: argument list in, exit status and output out. `null` = killed by a
 * signal; with `timedOutAfterMs`, killed because tmux did not answer in that long (a stopped or
 * hung server).
 */
export type TmuxRunner = (args: string[]) => Promise<{
  status: number | null;
  stdout: string;
  stderr: string;
  timedOutAfterMs?: number | undefined;
}>;

/** A server to talk to: by socket path (`-S`), by socket name (`-L`), or tmux's own default. */
export type ServerTarget = { socket: string } | { name: string } | undefined;

/** A server's identity: pane and session ids are reused after a restart, so the pid is part of it. */
export type ServerIdentity = { socket: string; pid: number };

export type TmuxEnv = { server: ServerIdentity; sessionIndex: number; pane: string | undefined };

/** A pane id as tmux prints it: `%` and a number. */
export const PANE_ID = /^%\d+$/;

/** Parse `$TMUX` ("socket,server pid,session index") and `$TMUX_PANE`; undefined outside tmux. */
export function parseTmuxEnv(env: {
  TMUX?: string | undefined;
  TMUX_PANE?: string | undefined;
}): TmuxEnv | undefined {
  const value = env.TMUX;
  if (!value) return undefined;
  // The socket path may itself hold commas: the last two fields are the numbers.
  const parts = value.split(",");
  if (parts.length < 3) return undefined;
  const sessionIndex = Number(parts.pop());
  const pid = Number(parts.pop());
  const socket = parts.join(",");
  if (
    !socket.startsWith("/") ||
    !Number.isInteger(pid) ||
    pid <= 0 ||
    !Number.isInteger(sessionIndex)
  )
    return undefined;
  const pane = env.TMUX_PANE && PANE_ID.test(env.TMUX_PANE) ? env.TMUX_PANE : undefined;
  return { server: { socket, pid }, sessionIndex, pane };
}

/** The leading arguments for a server: always `-u`, then `-S socket` or `-L name` when chosen. */
export function serverArgs(target: ServerTarget): string[] {
  if (!target) return ["-u"];
  return "socket" in target ? ["-u", "-S", target.socket] : ["-u", "-L", target.name];
}

/** The server as the user named it: `the tmux server named "work"`, `… at /tmp/sock`, or the default. */
export const serverName = (target: ServerTarget) =>
  !target
    ? "tmux's default server"
    : "socket" in target
      ? `the tmux server at ${target.socket}`
      : `the tmux server named "${target.name}"`;

/** The command that starts (or inspects) that server. */
export const tmuxCommand = (target: ServerTarget) =>
  !target ? "tmux" : "socket" in target ? `tmux -S ${target.socket}` : `tmux -L ${target.name}`;

/** Why a server gave no answer, and what to do: one sentence each, meant to be joined by "; ". */
export type NoServer = { reason: "no-server" | "no-answer"; error: string; fix: string };

/**
 * A failed call to a server as a value: `no-answer` when tmux timed out (the server is stopped or
 * hung), `no-server` when tmux could not reach it. Undefined when tmux answered.
 */
export function noServer(
  result: { status: number | null; stderr: string; timedOutAfterMs?: number | undefined },
  target: ServerTarget,
): NoServer | undefined {
  if (result.status === null && result.timedOutAfterMs !== undefined) {
    const seconds = Math.round(result.timedOutAfterMs / 100) / 10;
    return {
      reason: "no-answer",
      error: `${serverName(target)} did not answer in ${seconds} s`,
      fix: `it may be stopped or hung: check it with ${tmuxCommand(target)} list-sessions, or pick another server with -L name or -S socket`,
    };
  }
  if (result.status === 0 || result.status === null) return undefined;
  if (result.status === 127)
    return {
      reason: "no-server",
      error: "tmux is not installed (or not on PATH)",
      fix: "install tmux 3.2 or later",
    };
  const refused = /error connecting to .*\(([^)]+)\)/.exec(result.stderr)?.[1];
  const missing = !refused || /no such file|connection refused/i.test(refused);
  return {
    reason: "no-server",
    error: missing
      ? `${serverName(target)} is not running`
      : `${serverName(target)} cannot be reached (${refused})`,
    fix: `start it with ${tmuxCommand(target)}, or pick another server with -L name or -S socket`,
  };
}

/** A runner's answer, with a signal-killed tmux turned into the exception it is: no answer at all. */
export async function runTmux(run: TmuxRunner, args: string[]) {
  const result = await run(args);
  if (result.status === null) {
    throw new Error(
      result.timedOutAfterMs !== undefined
        ? `tmux ${args.join(" ")} did not answer in ${Math.round(result.timedOutAfterMs / 100) / 10} s`
        : `tmux ${args.join(" ")} was killed by a signal: no answer`,
    );
  }
  return result;
}
