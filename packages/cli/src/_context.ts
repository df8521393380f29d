// What every command shares: the output streams (JSON or human, colour only on a terminal), the
// failures that become exit codes, and lazily built effects: the team folder, the roster, tmux.
// The effects' code is imported when first used, so a command that needs none of them (`muster
// mcp`, whose server opens its own) does not load it.

import { errorLine, printable } from "@muster/core";
import type { RunResult, TeamFolder } from "@muster/node";
import type { Roster } from "@muster/roster";
import { parseTmuxEnv, type ServerTarget } from "@muster/tmux";
import { createColors } from "./_colors.js";

/** A usage error: exit status 2; `suggestion` is the word the user most likely meant. */
export class UsageError extends Error {
  readonly suggestion: string | undefined;
  constructor(line: string, options: { suggestion?: string | undefined } = {}) {
    super(line);
    this.suggestion = options.suggestion;
  }
}

/** A leaf's failure as a refusal takes it: what happened, what to do, the word likely meant. */
type Failure = { error: string; fix?: string | undefined; suggestion?: string | undefined };

/**
 * A refusal as a value: exit status 1, one line on stderr (and a JSON document with --json). A
 * command returns it to `_main.ts`, as execa's `reject: false` returns its failure.
 */
export type Refused = {
  ok: false;
  reason: string;
  error: string;
  details: Record<string, unknown>;
};

/**
 * A refusal as a value. Given a leaf's failure (`{ error, fix, suggestion }`), the line is error
 * and fix joined, and the document keeps the fix and the suggestion apart too.
 */
export function refused(
  reason: string,
  line: string | Failure,
  details: Record<string, unknown> = {},
): Refused {
  const { fix, suggestion } = typeof line === "string" ? {} : line;
  return {
    ok: false,
    reason,
    error: typeof line === "string" ? line : errorLine(line),
    details: {
      ...(fix?.trim() ? { fix: fix.trim() } : {}),
      ...(suggestion === undefined ? {} : { suggestion }),
      ...details,
    },
  };
}

/** Whether a command's answer is a refusal returned as a value. */
export const isRefused = (value: unknown): value is Refused =>
  typeof value === "object" &&
  value !== null &&
  (value as { ok?: unknown }).ok === false &&
  typeof (value as { details?: unknown }).details === "object";

/**
 * A refusal or a not-found thrown: what `refused` makes, for code that cannot return it (exit
 * status 1, as a returned refusal).
 */
export class Refusal extends Error {
  readonly reason: string;
  readonly details: Record<string, unknown>;
  constructor(reason: string, line: string | Failure, details: Record<string, unknown> = {}) {
    const value = refused(reason, line, details);
    super(value.error);
    this.reason = reason;
    this.details = value.details;
  }

  /** This refusal as a value, to return instead of throw. */
  get refused(): Refused {
    return { ok: false, reason: this.reason, error: this.message, details: this.details };
  }
}

/** What the CLI tells a user whose team folder cannot be read: doctor checks each part. */
const UNREADABLE_FIX = "run muster doctor";

/** A read of the team folder that failed, as a refusal: the leaf's error, then the CLI's fix. */
export const unreadable = (reason: string, failure: { error: string }) =>
  new Refusal(reason, { error: failure.error, fix: UNREADABLE_FIX });

/** A stream as Node's are: the write's callback says whether the text was written. */
export type Output = {
  write(text: string, callback?: (error?: Error | null) => void): unknown;
  on?(event: "error", listener: (error: Error) => void): unknown;
  isTTY?: boolean | undefined;
};

export type Io = {
  stdout: Output;
  stderr: { write(text: string): unknown; isTTY?: boolean | undefined };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean | undefined };
  env: NodeJS.ProcessEnv;
  cwd: string;
};

export type GlobalOptions = {
  json: boolean;
  teamDir?: string | undefined;
  socketName?: string | undefined;
  socketPath?: string | undefined;
  /**
   * The team (and its roster) of the command that runs this one in its own process (the
   * dashboard's actions): used as they are, and left open when this command ends.
   */
  shared?: { team(): Promise<TeamFolder>; roster(): Promise<Roster> } | undefined;
};

export function createContext(io: Io, options: GlobalOptions) {
  const colorOn = Boolean(io.stdout.isTTY) && !("NO_COLOR" in io.env) && io.env.TERM !== "dumb";
  const color = createColors(colorOn);
  const here = parseTmuxEnv(io.env);
  let team: Promise<TeamFolder> | undefined = options.shared?.team();
  let roster: Promise<Roster> | undefined = options.shared?.roster();
  const output = outputOf(io);
  const context = {
    io,
    json: options.json,
    color,
    colorOn,
    target: serverTarget(options, here),
    /** The global options this command was given, as flags for a command it runs itself. */
    globalFlags: [
      ...(options.teamDir ? ["--team-dir", options.teamDir] : []),
      ...(options.socketPath ? ["-S", options.socketPath] : []),
      ...(options.socketName && !options.socketPath ? ["-L", options.socketName] : []),
    ],
    /** -L or -S named the server (else it is $TMUX's, or tmux's default). */
    named: Boolean(options.socketPath || options.socketName),
    here,
    run: (args: string[]) => runTmux(io, args),
    /** What every tmux runner of this command is given: the environment and the timeout. */
    tmuxOptions: () => tmuxOptions(io),
    ...output,
    out(text: string) {
      output.write(text.endsWith("\n") ? text : `${text}\n`);
    },
    /** The one JSON document a command prints with --json; `ok` leads every one. */
    emit(document: object) {
      output.write(`${JSON.stringify({ ok: true, ...document }, null, 2)}\n`);
    },
    /** One JSON document on one line, for a stream of them (NDJSON). */
    emitLine(document: object) {
      output.write(`${JSON.stringify({ ok: true, ...document })}\n`);
    },
    /** A warning on stderr; its text may quote files and names others wrote, so it is shown safely. */
    warn(text: string) {
      io.stderr.write(`${color.yellow("warning:")} ${printable(text)}\n`);
    },
    team(): Promise<TeamFolder> {
      team ??= import("./_effects.js").then(({ findTeamFolder }) =>
        findTeamFolder({ cwd: io.cwd, env: io.env, teamDir: options.teamDir }),
      );
      return team;
    },
    roster(): Promise<Roster> {
      roster ??= (async () => {
        const { openTeam } = await import("./_effects.js");
        const opened = await openTeam({
          cwd: io.cwd,
          env: io.env,
          teamDir: options.teamDir,
          folder: context.team,
        });
        if (!opened.ok) throw new Refusal(opened.reason, opened);
        return opened.roster;
      })();
      return roster;
    },
    /** End what opening the team opened (a NATS connection): the command is done. */
    async close() {
      if (!roster || options.shared) return;
      const { closeTeams } = await import("./_effects.js");
      await closeTeams();
    },
    async processes() {
      const { processRows } = await import("./_effects.js");
      const rows = await processRows();
      if (!rows.ok) throw new Refusal(rows.reason, rows);
      return rows.processes;
    },
  };
  return context;
}

/** The tmux server a command talks to: -S, else -L, else the one this shell is in, else tmux's. */
function serverTarget(options: GlobalOptions, here: ReturnType<typeof parseTmuxEnv>): ServerTarget {
  if (options.socketPath) return { socket: options.socketPath };
  if (options.socketName) return { name: options.socketName };
  return here ? { socket: here.server.socket } : undefined;
}

/** Run tmux; MUSTER_TMUX_TIMEOUT_MS: how long a tmux server may take to answer (default 5 s). */
/** The environment tmux runs in, and its timeout (MUSTER_TMUX_TIMEOUT_MS; else the runner's). */
function tmuxOptions(io: Io) {
  const timeoutMs = Number(io.env.MUSTER_TMUX_TIMEOUT_MS);
  return { env: io.env, timeoutMs: timeoutMs > 0 ? timeoutMs : undefined };
}

async function runTmux(io: Io, args: string[]): Promise<RunResult> {
  const { createTmuxRunner } = await import("./_effects.js");
  return createTmuxRunner(tmuxOptions(io))(args);
}

/**
 * The command's output. A failed write (ENOSPC, a closed pipe) is recorded, not thrown: main
 * reports it once, and whatever waits on the output (inbox, --watch) learns of it to stop or keep
 * the mail unread.
 */
function outputOf(io: Io) {
  let outputError: NodeJS.ErrnoException | undefined;
  const pending = new Set<Promise<void>>();
  const closedListeners: (() => void)[] = [];
  const failed = (error: Error) => {
    if (outputError) return;
    outputError = error;
    for (const listener of closedListeners.splice(0)) listener();
  };
  io.stdout.on?.("error", failed);
  const print = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (outputError) return reject(outputError);
      io.stdout.write(text, (error) => {
        if (error) {
          failed(error);
          reject(error);
        } else resolve();
      });
    });
  return {
    /** Write and carry on; a failure is recorded for main to report. */
    write(text: string) {
      const written = print(text).catch(() => undefined);
      pending.add(written);
      void written.finally(() => pending.delete(written));
    },
    /** Write and learn whether it was written (rejects with the stream's error). */
    print,
    /** Every write so far settled; the first failure, if any. */
    async settled(): Promise<NodeJS.ErrnoException | undefined> {
      await Promise.all(pending);
      return outputError;
    },
    /** Call `listener` once, when the output fails or closes. */
    onOutputClosed(listener: () => void) {
      if (outputError) listener();
      else closedListeners.push(listener);
    },
  };
}

export type Context = ReturnType<typeof createContext>;
