// A private tmux server for tests: `tmux -L muster-test-<random> -f /dev/null` (a benchmark's is
// `muster-bench-<random>`, told apart from a test's in the process table), with TMUX and
// TMUX_PANE removed from the environment, and a guard that refuses any other socket. A test kills
// only the server it started, by its socket name. Never the user's default server.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { execa, type Options } from "execa";

export type RunResult = { status: number | null; stdout: string; stderr: string };

const PRIVATE = /^muster-(test|bench)-[0-9a-f]{8,}$/;

/** The environment every test tmux call gets: no TMUX, no TMUX_PANE, and the caller's extras. */
export function tmuxEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

/** Throw unless these tmux arguments address a private test server and nothing else. */
export function assertPrivateSocket(args: readonly string[]): void {
  const named = args.flatMap((arg, index) => (arg === "-L" ? [args[index + 1] ?? ""] : []));
  const sockets = args.flatMap((arg, index) => (arg === "-S" ? [args[index + 1] ?? ""] : []));
  const ok =
    named.length + sockets.length === 1 &&
    named.every((name) => PRIVATE.test(name)) &&
    sockets.every((socket) => PRIVATE.test(basename(socket)));
  if (!ok)
    throw new Error(
      `refusing to run tmux against a server that is not a private test server: tmux ${args.join(" ")}`,
    );
}

/**
 * Run tmux with guarded arguments; a signal-killed tmux answers status null. Through execa: in a
 * test its import cost does not matter, and it keeps the environment exactly as given (no $TMUX
 * creeping back in from this process) and the output byte for byte (the final newline too).
 */
export function runGuarded(
  args: readonly string[],
  env: NodeJS.ProcessEnv = tmuxEnv(),
): Promise<RunResult> {
  assertPrivateSocket(args);
  // Typed as execa's general Options: with the literal options, TypeScript spends seconds deriving
  // the result's type in every program that imports this package. The output is text (execa's
  // default encoding): said by a check, not assumed.
  const options: Options = {
    env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    stripFinalNewline: false,
  };
  return execa("tmux", ["-f", "/dev/null", ...args], options).then((result) => {
    // tmux that could not start at all is a broken test machine, not an answer.
    if (result.failed && result.exitCode === undefined && result.signal === undefined)
      throw new Error(result.message);
    const { stdout, stderr } = result;
    if (typeof stdout !== "string" || typeof stderr !== "string")
      throw new Error("tmux's output did not come back as text");
    return {
      status: result.signal === undefined ? (result.exitCode ?? null) : null,
      stdout,
      stderr,
    };
  });
}

export type PrivateTmux = {
  /** The socket name, for `-L`. */
  name: string;
  /** The socket path, for `-S`. */
  socket: string;
  env: NodeJS.ProcessEnv;
  /** Run tmux on this server synchronously (setup); returns stdout. */
  tmux(...args: string[]): string;
  /** A runner as the leaves take it: their arguments, sent to this server only. */
  run(args: string[]): Promise<RunResult>;
  /** Kill this server (only this one, by its socket name). Safe to call twice. */
  kill(): void;
};

/**
 * Start a private server with one detached session `main` running `command` (a shell by default);
 * `for: "bench"` names it `muster-bench-<random>`.
 */
export function startPrivateTmux(
  options: {
    command?: string;
    cwd?: string;
    env?: Record<string, string | undefined>;
    for?: "test" | "bench";
  } = {},
): PrivateTmux {
  const name = `muster-${options.for ?? "test"}-${randomBytes(6).toString("hex")}`;
  const env = tmuxEnv(options.env);
  const tmux = (...args: string[]) => {
    const full = ["-L", name, "-f", "/dev/null", ...args];
    assertPrivateSocket(full);
    return execFileSync("tmux", full, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  };
  tmux(
    "new-session",
    "-d",
    "-s",
    "main",
    "-x",
    "200",
    "-y",
    "50",
    ...(options.cwd ? ["-c", options.cwd] : []),
    ...(options.command ? [options.command] : []),
  );
  const socket = tmux("display-message", "-p", "#{socket_path}").trim();
  let killed = false;
  return {
    name,
    socket,
    env,
    tmux,
    run: (args) => runGuarded(args, env),
    kill() {
      if (killed) return;
      killed = true;
      try {
        tmux("kill-server");
      } catch {
        // already gone
      }
      // tmux 3.3a leaves its socket file behind on kill-server: 2,000 of them gathered in
      // /tmp/tmux-0 in a day of test runs. Only the socket this server answered with is removed.
      if (basename(socket) === name) rmSync(socket, { force: true });
    },
  };
}

export type AttachedClient = {
  /** Everything tmux has drawn on the client's terminal so far (latin1, escapes and all). */
  drawn(): string;
  /** Detach: end the client. Safe to call twice. */
  close(): void;
};

/**
 * A real tmux client attached to `session` of a private server, on a pseudo-terminal (`script
 * -qfc`), what tmux draws on it recorded in `screen`: the person looking at the terminal. Resolves
 * once the server lists the client.
 */
export async function attachClient(
  tmux: PrivateTmux,
  screen: string,
  session = "main",
): Promise<AttachedClient> {
  const client: ChildProcess = spawn(
    "script",
    ["-qfc", `tmux -L ${tmux.name} -f /dev/null attach -t ${session}`, screen],
    { env: { ...tmux.env, TERM: "xterm-256color" }, stdio: ["pipe", "ignore", "ignore"] },
  );
  // `script` outlives a SIGTERM while its tmux client runs; killed, its pseudo-terminal closes and
  // the client with it (a plain kill() left both running past the test).
  const close = () => {
    client.stdin?.end();
    client.kill("SIGKILL");
  };
  for (let tries = 0; !tmux.tmux("list-clients", "-F", "#{client_tty}").includes("/dev/"); ) {
    tries += 1;
    if (tries > 200) {
      close();
      throw new Error("the tmux client did not attach");
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    drawn: () => {
      try {
        return readFileSync(screen, "latin1");
      } catch {
        return "";
      }
    },
    close,
  };
}
