// The reconcile loop: scan after scan, turn discoveries into registry callbacks without ever
// mistaking a failed look for a death. Scans are serialized and coalesced; the probe, the
// registry callbacks, the clock and the timer are injected.
import type { FoundAgent } from "./_discover.js";

/** An agent as the caller's registry holds it. */
export type TrackedAgent = {
  /** The registry's own key for this agent. */
  key: string;
  engine: string;
  route: string;
  backend?: string | undefined;
  /** engine:pid:start of the process last seen; undefined when never seen with one. */
  identity?: string | undefined;
  /** Bound to a session: from then on the process identity decides, never the placement. */
  bound: boolean;
  state: "live" | "dormant";
};

export type ProbeResult =
  | { ok: false; error: string }
  | {
      ok: true;
      agents: readonly FoundAgent[];
      ambiguous: readonly { route: string }[];
      /** Every route (pane) that exists now, on the backends that answered. */
      routes: ReadonlySet<string>;
      /** Backends (servers) that did not answer: their routes are no evidence either way. */
      unavailable: readonly string[];
      /** Routes whose per-pane check answered "unknown". */
      unknown?: readonly string[] | undefined;
      /** `pid:start` of every process alive now: suppressions end when theirs is gone. */
      processes: ReadonlySet<string>;
    };

export type ProbeStatus =
  | { ok: true; scan: number; agents: number; ambiguous: number }
  | { ok: false; scan: number; error: string };

export type Awaitable<T> = T | Promise<T>;

export type ReconcilerOptions = {
  probe: () => Promise<ProbeResult>;
  current: () => Awaitable<readonly TrackedAgent[]>;
  onDiscovered: (agent: FoundAgent) => Awaitable<void>;
  onObserved: (tracked: TrackedAgent, agent: FoundAgent) => Awaitable<void>;
  onDormant: (tracked: TrackedAgent) => Awaitable<void>;
  onRemoved: (tracked: TrackedAgent) => Awaitable<void>;
  onAvailability?: ((backend: string, available: boolean) => Awaitable<void>) | undefined;
  /** Called after the registry has been updated for a scan, or when a scan had no evidence. */
  onProbeStatus?: ((status: ProbeStatus) => Awaitable<void>) | undefined;
  /** Confirmed scans before dormant and before removed. Default 2. */
  misses?: number | undefined;
  clock: () => number;
  timers?:
    | {
        setInterval: (run: () => void, ms: number) => unknown;
        clearInterval: (handle: unknown) => void;
      }
    | undefined;
};

export type Reconciler = {
  start(intervalMs: number): void;
  stop(): Promise<void>;
  /** Scan now; triggers during a scan cause exactly one more scan. Resolves when that scan is done. */
  trigger(): Promise<void>;
  /** Do not rediscover this process until a scan proves it gone. */
  suppress(agent: { pid: number; start: string }): void;
  /** Skip this route in both halves (an in-place restart) until released or `autoReleaseMs` passes. */
  holdRoute(route: string, autoReleaseMs: number): void;
  releaseRoute(route: string): void;
  /** An agent the caller proved itself: through the same callbacks, without waiting for a scan. */
  adoptVerified(agent: FoundAgent): Promise<void>;
  readonly scans: number;
};

export const DEFAULT_MISSES = 2;

const processKey = (agent: { pid: number; start: string }) => `${agent.pid}:${agent.start}`;

export function createReconciler(options: ReconcilerOptions): Reconciler {
  const limit = options.misses ?? DEFAULT_MISSES;
  const misses = new Map<string, { dormant: number; gone: number }>();
  const suppressed = new Set<string>();
  const holds = new Map<string, number>();
  const down = new Set<string>();
  let scans = 0;
  let interval: unknown;
  let chain: Promise<unknown> = Promise.resolve();
  let running: Promise<void> | undefined;
  let pending: Promise<void> | undefined;

  /** Run `task` after everything queued before it: scans and adoptions never overlap. */
  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task);
    chain = run.catch(() => undefined);
    return run;
  };

  const held = (route: string) => {
    const until = holds.get(route);
    if (until === undefined) return false;
    if (options.clock() < until) return true;
    holds.delete(route);
    return false;
  };

  const observe = async (tracked: TrackedAgent, agent: FoundAgent) => {
    misses.delete(tracked.key);
    await options.onObserved(tracked, agent);
  };

  /**
   * The tracked agent a found one continues: same identity, or (never bound) the same placement
   * and engine, unless its own process is still seen. Indexed once per scan: linear, not n².
   */
  const matcher = (current: readonly TrackedAgent[], found: ReadonlySet<string>) => {
    const byIdentity = new Map<string, TrackedAgent>();
    const byRoute = new Map<string, TrackedAgent[]>();
    for (const tracked of current) {
      if (tracked.identity !== undefined) byIdentity.set(tracked.identity, tracked);
      if (tracked.bound) continue;
      const list = byRoute.get(tracked.route);
      if (list) list.push(tracked);
      else byRoute.set(tracked.route, [tracked]);
    }
    const taken = new Set<string>();
    return {
      taken,
      take(agent: FoundAgent): TrackedAgent | undefined {
        const same = byIdentity.get(agent.identity);
        const tracked =
          same && !taken.has(same.key)
            ? same
            : byRoute
                .get(agent.route)
                ?.find(
                  (candidate) =>
                    !taken.has(candidate.key) &&
                    candidate.engine === agent.engine &&
                    (candidate.identity === undefined || !found.has(candidate.identity)),
                );
        if (tracked) taken.add(tracked.key);
        return tracked;
      },
    };
  };

  const scanOnce = async () => {
    scans += 1;
    const scan = scans;
    let result: ProbeResult;
    try {
      result = await options.probe();
    } catch (error) {
      result = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    if (!result.ok) {
      // No process table, no evidence: every agent stays as it is.
      await options.onProbeStatus?.({ ok: false, scan, error: result.error });
      return;
    }
    for (const backend of result.unavailable) {
      if (!down.has(backend)) {
        down.add(backend);
        await options.onAvailability?.(backend, false);
      }
    }
    for (const backend of [...down]) {
      if (!result.unavailable.includes(backend)) {
        down.delete(backend);
        await options.onAvailability?.(backend, true);
      }
    }
    for (const key of [...suppressed]) if (!result.processes.has(key)) suppressed.delete(key);
    const noEvidence = new Set([
      ...result.ambiguous.map((entry) => entry.route),
      ...(result.unknown ?? []),
    ]);
    const current = await options.current();
    const claimed = new Set<string>();
    const match = matcher(current, new Set(result.agents.map((agent) => agent.identity)));
    const taken = match.taken;
    for (const agent of result.agents) {
      if (held(agent.route)) continue;
      const tracked = match.take(agent);
      if (!tracked) continue;
      claimed.add(agent.identity);
      await observe(tracked, agent);
    }
    for (const tracked of current) {
      if (taken.has(tracked.key) || held(tracked.route)) continue;
      if (tracked.backend !== undefined && down.has(tracked.backend)) continue;
      if (noEvidence.has(tracked.route)) continue;
      const count = misses.get(tracked.key) ?? { dormant: 0, gone: 0 };
      if (result.routes.has(tracked.route)) {
        count.dormant += 1;
        count.gone = 0;
        misses.set(tracked.key, count);
        if (count.dormant === limit && tracked.state !== "dormant")
          await options.onDormant(tracked);
      } else {
        count.gone += 1;
        misses.set(tracked.key, count);
        if (count.gone >= limit) {
          misses.delete(tracked.key);
          await options.onRemoved(tracked);
        }
      }
    }
    for (const agent of result.agents) {
      if (claimed.has(agent.identity) || suppressed.has(processKey(agent)) || held(agent.route))
        continue;
      await options.onDiscovered(agent);
    }
    await options.onProbeStatus?.({
      ok: true,
      scan,
      agents: result.agents.length,
      ambiguous: result.ambiguous.length,
    });
  };

  const trigger = (): Promise<void> => {
    if (!running) {
      running = exclusive(scanOnce).finally(() => {
        running = undefined;
      });
      return running;
    }
    pending ??= running.then(
      () => {
        pending = undefined;
        return trigger();
      },
      () => {
        pending = undefined;
        return trigger();
      },
    );
    return pending;
  };

  return {
    start(intervalMs) {
      if (!options.timers)
        throw new Error("createReconciler: start() needs timers (setInterval, clearInterval)");
      if (interval !== undefined) return;
      const tick = () => {
        trigger().catch(() => undefined);
      };
      interval = options.timers.setInterval(tick, intervalMs);
      tick();
    },
    async stop() {
      if (interval !== undefined) options.timers?.clearInterval(interval);
      interval = undefined;
      await (pending ?? running);
    },
    trigger,
    suppress(agent) {
      suppressed.add(processKey(agent));
    },
    holdRoute(route, autoReleaseMs) {
      holds.set(route, options.clock() + autoReleaseMs);
    },
    releaseRoute(route) {
      holds.delete(route);
    },
    adoptVerified(agent) {
      return exclusive(async () => {
        const tracked = matcher(await options.current(), new Set([agent.identity])).take(agent);
        if (tracked) await observe(tracked, agent);
        else if (!suppressed.has(processKey(agent))) await options.onDiscovered(agent);
      });
    },
    get scans() {
      return scans;
    },
  };
}
