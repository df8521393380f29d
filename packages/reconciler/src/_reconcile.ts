// The reconcile loop: serialises and coalesces scans, gives each scan a time limit, and turns
// each scan's outcome (a pure function, _scan.ts) into registry callbacks. The scan, the
// registry callbacks, the clock and the timers are injected.
import type { FoundAgent } from "./_discover.js";
import { createHolds } from "./_holds.js";
import { adoptAgent, emptyMemory, reconcileScan, type ScanOutcome } from "./_scan.js";
import { copyTracked, processKey, type ScanResult, type TrackedAgent } from "./_tracked.js";

export type ScanStatus =
  | { ok: true; scan: number; agents: number; ambiguous: number }
  | { ok: false; scan: number; error: string };

export type Awaitable<T> = T | Promise<T>;

export type ReconcilerOptions = {
  scan: () => Promise<ScanResult>;
  current: () => Awaitable<readonly TrackedAgent[]>;
  onDiscovered: (agent: FoundAgent) => Awaitable<void>;
  onObserved: (tracked: TrackedAgent, agent: FoundAgent) => Awaitable<void>;
  onDormant: (tracked: TrackedAgent) => Awaitable<void>;
  onRemoved: (tracked: TrackedAgent) => Awaitable<void>;
  onAvailability?: ((server: string, available: boolean) => Awaitable<void>) | undefined;
  /** Called after the registry has been updated for a scan, or when a scan had no evidence. */
  onScanStatus?: ((status: ScanStatus) => Awaitable<void>) | undefined;
  /** Confirmed scans before dormant and before removed. Default 2. */
  misses?: number | undefined;
  /** A scan that has not answered by then is no evidence, and the loop moves on. Default 10 s. */
  scanTimeoutMs?: number | undefined;
  clock: () => number;
  /** `setInterval` for `start()`; `setTimeout` for the scan time limit (no limit without it). */
  timers?:
    | {
        setInterval: (run: () => void, ms: number) => unknown;
        clearInterval: (handle: unknown) => void;
        setTimeout?: ((run: () => void, ms: number) => unknown) | undefined;
        clearTimeout?: ((handle: unknown) => void) | undefined;
      }
    | undefined;
};

export type Reconciler = {
  start(intervalMs: number): void;
  stop(): Promise<void>;
  /** Scan now; triggers during a scan cause exactly one more scan. Resolves when that scan is done. */
  trigger(): Promise<void>;
  /** Do not rediscover this process until a scan started after this call proves it gone. */
  suppress(agent: { pid: number; start: string }): void;
  /**
   * Skip this seat key in both halves (an in-place restart) until released or `autoReleaseMs` passes.
   * Holds overlap: the answer releases this caller's hold only.
   */
  holdSeat(seatKey: string, autoReleaseMs: number): () => void;
  /** An agent the caller proved itself: through the same callbacks, without waiting for a scan. */
  adoptVerified(agent: FoundAgent): Promise<void>;
  readonly scans: number;
};

export const DEFAULT_MISSES = 2;
export const DEFAULT_SCAN_TIMEOUT_MS = 10_000;

const isPending = (value: unknown): value is PromiseLike<void> =>
  typeof (value as PromiseLike<void> | undefined)?.then === "function";

/** Call back for each item, awaiting only answers that are promises: 10,000 synchronous
 * callbacks need no 10,000 microtask turns. */
async function each<T>(items: readonly T[], call: (item: T) => unknown) {
  for (const item of items) {
    const answer = call(item);
    if (isPending(answer)) await answer;
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** What the loop keeps between scans. */
type LoopState = {
  memory: ReturnType<typeof emptyMemory>;
  /** Suppressions made while the current scan runs. */
  fresh: Set<string>;
  scans: number;
};

export function createReconciler(options: ReconcilerOptions): Reconciler {
  const holds = createHolds(options.clock);
  const state: LoopState = { memory: emptyMemory(), fresh: new Set(), scans: 0 };
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

  const trigger = (): Promise<void> => {
    if (!running) {
      running = exclusive(() => scanOnce(options, holds, state)).finally(() => {
        running = undefined;
      });
      return running;
    }
    const again = () => {
      pending = undefined;
      return trigger();
    };
    pending ??= running.then(again, again);
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
      const key = processKey(agent);
      state.memory = { ...state.memory, suppressed: new Set(state.memory.suppressed).add(key) };
      state.fresh.add(key);
    },
    holdSeat: (seatKey, autoReleaseMs) => holds.hold(seatKey, autoReleaseMs),
    adoptVerified(agent) {
      return exclusive(async () => {
        const adopted = adoptAgent(state.memory, await options.current(), agent);
        state.memory = adopted.memory;
        if (adopted.observed) await options.onObserved(adopted.observed, agent);
        if (adopted.discovered) await options.onDiscovered(adopted.discovered);
      });
    },
    get scans() {
      return state.scans;
    },
  };
}

/** One scan: its outcome against what was known, handed to the registry's callbacks. */
async function scanOnce(
  options: ReconcilerOptions,
  holds: ReturnType<typeof createHolds>,
  state: LoopState,
) {
  state.scans += 1;
  const scan = state.scans;
  // Everything known before the scan starts; anything that changes while it runs is fenced.
  const watch = holds.watch();
  state.fresh = new Set();
  const before = (await options.current()).map(copyTracked);
  const result = await scanWithinLimit(options);
  const after = await options.current();
  const outcome = reconcileScan({
    memory: state.memory,
    result,
    before,
    after,
    held: watch.end(),
    freshSuppressions: state.fresh,
    misses: options.misses ?? DEFAULT_MISSES,
  });
  state.memory = outcome.memory;
  if (!result.ok) {
    await options.onScanStatus?.({ ok: false, scan, error: result.error });
    return;
  }
  await apply(options, outcome);
  await options.onScanStatus?.({
    ok: true,
    scan,
    agents: result.agents.length,
    ambiguous: result.ambiguous.length,
  });
}

/** The scan's answer, or no evidence when it throws or outlasts the time limit. */
async function scanWithinLimit(options: ReconcilerOptions): Promise<ScanResult> {
  const timeoutMs = options.scanTimeoutMs ?? DEFAULT_SCAN_TIMEOUT_MS;
  const answer = Promise.resolve()
    .then(options.scan)
    .catch((error: unknown): ScanResult => ({ ok: false, error: messageOf(error) }));
  const { setTimeout, clearTimeout } = options.timers ?? {};
  if (!setTimeout) return answer;
  let handle: unknown;
  const late = new Promise<ScanResult>((resolve) => {
    handle = setTimeout(
      () => resolve({ ok: false, error: `the scan did not answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout?.(handle);
  }
}

/** A scan's outcome, in the registry's callbacks, in the order they must see it. */
async function apply(options: ReconcilerOptions, outcome: ScanOutcome) {
  await each(outcome.availability, ({ server, available }) =>
    options.onAvailability?.(server, available),
  );
  await each(outcome.observed, ({ tracked, agent }) => options.onObserved(tracked, agent));
  await each(outcome.dormant, (tracked) => options.onDormant(tracked));
  await each(outcome.removed, (tracked) => options.onRemoved(tracked));
  await each(outcome.discovered, (agent) => options.onDiscovered(agent));
}
