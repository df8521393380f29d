// Which tmux server: parse $TMUX and $TMUX_PANE, and build the arguments that address a server.
// Every invocation starts with `-u`: without it, tabs and non-ASCII come back as `_` under a C locale.

/** The injected tmux runner: argument list in, exit status and output out. `null` = killed by a signal. */
export type TmuxRunner = (
  args: string[],
) => Promise<{ status: number | null; stdout: string; stderr: string }>;

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

/** A runner's answer, with a signal-killed tmux turned into the exception it is: no answer at all. */
export async function runTmux(run: TmuxRunner, args: string[]) {
  const result = await run(args);
  if (result.status === null) {
    throw new Error(`tmux ${args.join(" ")} was killed by a signal: no answer`);
  }
  return result;
}
