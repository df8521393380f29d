// A process's lifetime, in one place: what it opened for a team (a NATS connection, which keeps
// a process alive) is kept here until it is closed, and the end of a process that serves or
// answers a client (`muster mcp` once its stdin closes, a hook once it answered) is one rule.
// Once the end has begun, what is in flight is awaited for a bound, then every team is closed
// and whatever opens afterwards is closed as it lands; past the bound, whatever still holds the
// process is cut off by its exit, but only once stdout and stderr are written. What a process
// opens is not known here: only that it was kept (`keepOpen`) or is under way (`inFlight`).

/** How long the end waits for what is in flight (MUSTER_END_MS may shorten it, never lengthen it). */
export const END_MS = 5_000;
/** After the bound, the closes this long to finish before the exit cuts them off. */
const CLOSE_GRACE_MS = 500;

type Phase = "running" | "ending" | "closed";
let phase: Phase = "running";
const kept = new Set<() => Promise<void>>();
const flying = new Set<Promise<unknown>>();

/**
 * Keep `close` until the process's teams are closed. After the end closed them, it is closed at
 * once instead: the answer is false, and what it closes must not be used.
 */
export function keepOpen(close: () => Promise<void>): boolean {
  if (phase === "closed") {
    void close().catch(() => undefined);
    return false;
  }
  kept.add(close);
  return true;
}

/** Whether the end has closed this process's teams: nothing new is to be opened. */
export const teamsClosed = () => phase === "closed";

/** Work under way (a team being opened) that the end waits for, up to its bound. */
export function inFlight<T>(work: Promise<T>): Promise<T> {
  const settled: Promise<unknown> = work.then(
    () => flying.delete(settled),
    () => flying.delete(settled),
  );
  flying.add(settled);
  return work;
}

/** Close every team this process opened (a command done with them); it may open others later. */
export async function closeTeams(): Promise<void> {
  const closers = [...kept];
  kept.clear();
  await Promise.all(closers.map((close) => close().catch(() => undefined)));
}

/** The end's bound for this environment. */
export function endBound(env: NodeJS.ProcessEnv): number {
  const asked = Number(env.MUSTER_END_MS);
  return asked > 0 ? Math.min(asked, END_MS) : END_MS;
}

/**
 * Milliseconds since this process started, monotonic: process.uptime, not performance.now (the
 * performance global loads perf_hooks, nine modules, at every hook that ends through here).
 */
const now = () => process.uptime() * 1000;

/** Run `work`; done when it is, or once `deadline` (now()) has passed. */
function until(deadline: number, work: () => unknown): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - now()));
    timer.unref();
  });
  const done = Promise.resolve()
    .then(work)
    .catch(() => undefined);
  return Promise.race([done, late]).finally(() => clearTimeout(timer));
}

/** Everything written so far to `stream` has left the process (or the stream has failed). */
function written(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    try {
      stream.write("", () => resolve());
    } catch {
      resolve();
    }
  });
}

/**
 * Past `ms`, if anything still holds the process, end it with its exit code once stdout and
 * stderr are written. The timer itself holds nothing: a process that ends by itself never sees it.
 */
function exitAfter(ms: number) {
  setTimeout(() => {
    void Promise.all([written(process.stdout), written(process.stderr)]).then(() => process.exit());
  }, ms).unref();
}

export type EndOptions = {
  /**
   * Run in order, teams still open, within the bound: the last answers written, the loops that
   * would open more stopped. One that outlasts the bound is left behind.
   */
  before?: readonly (() => unknown)[] | undefined;
  env?: NodeJS.ProcessEnv | undefined;
};

/**
 * End this process: run `before`, then wait for the teams under way and close every team (and,
 * from then on, whatever lands), all within the bound. Resolves when that is done; the process
 * then ends by itself, and is made to exit shortly after the bound if something still holds it.
 */
export async function endProcess(options: EndOptions = {}): Promise<void> {
  const bound = endBound(options.env ?? process.env);
  const deadline = now() + bound;
  exitAfter(bound + CLOSE_GRACE_MS);
  if (phase === "running") phase = "ending";
  for (const step of options.before ?? []) await until(deadline, step);
  await until(deadline, () => Promise.all([...flying]));
  phase = "closed";
  await until(deadline + CLOSE_GRACE_MS, closeTeams);
}
