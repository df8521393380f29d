// The loop with a controllable scan: registrations, moves, holds and restarts that happen while
// a scan runs, scans that never answer, and late answers that arrive after the loop moved on.
import { describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  createReconciler,
  type FoundAgent,
  type ReconcilerOptions,
  type ScanResult,
} from "./index.js";

const found = (pane: string, pid: number): FoundAgent => ({
  engine: "pi",
  pid,
  start: "1",
  identity: `pi:${pid}:1`,
  seatKey: `srv#${pane}`,
  server: "srv",
  pane,
  session: "$0",
  sessionName: "main",
  cwd: "/repo",
  argv: ["pi"],
  depth: 1,
});

const evidence = (agents: FoundAgent[], panes: string[]): ScanResult => ({
  ok: true,
  agents,
  ambiguous: [],
  seatKeys: new Set(panes.map((pane) => `srv#${pane}`)),
  unavailable: [],
  answered: ["srv"],
  processes: new Set(agents.map((agent) => `${agent.pid}:${agent.start}`)),
});

/** A scan the test answers by hand: each call waits until the test answers it. */
function manualScan() {
  const waiting: ((result: ScanResult) => void)[] = [];
  const watchers: (() => void)[] = [];
  return {
    scan: () =>
      new Promise<ScanResult>((resolve) => {
        waiting.push(resolve);
        for (const started of watchers.splice(0)) started();
      }),
    /** Resolves when the next scan starts. */
    next: () => new Promise<void>((resolve) => watchers.push(resolve)),
    /** Answer the newest scan still waiting. */
    answer: (result: ScanResult) => waiting.pop()?.(result),
    /** Answer the oldest scan still waiting (a late answer). */
    answerLate: (result: ScanResult) => waiting.shift()?.(result),
  };
}

function setup(extra: Partial<ReconcilerOptions> = {}) {
  const registry = createAgentRegistry();
  const events: string[] = [];
  const manual = manualScan();
  const reconciler = createReconciler({
    scan: manual.scan,
    ...registry,
    current: registry.entries,
    onDiscovered: (agent) => {
      events.push(`discovered ${agent.pane} ${agent.pid}`);
      registry.onDiscovered(agent);
    },
    onRemoved: (tracked) => {
      events.push(`removed ${tracked.seatKey}`);
      registry.onRemoved(tracked);
    },
    onDormant: (tracked) => {
      events.push(`dormant ${tracked.seatKey}`);
      registry.onDormant(tracked);
    },
    onScanStatus: (status) => {
      if (!status.ok) events.push(`no evidence: ${status.error}`);
    },
    clock: () => 0,
    ...extra,
  });
  /** One scan whose scan sees `result`, with `during` happening after the scan started. */
  const scanWith = async (result: ScanResult, during: () => unknown = () => undefined) => {
    const started = manual.next();
    const scan = reconciler.trigger();
    await started;
    await during();
    manual.answer(result);
    await scan;
  };
  const states = () =>
    registry.entries().map((entry) => `${entry.agent.pane}:${entry.agent.pid}:${entry.state}`);
  return { registry, events, reconciler, scanWith, states, manual };
}

describe("a scan judges only what was known when it started", () => {
  it("a bound agent restarted in place while the scan ran is not minted a second time", async () => {
    const { registry, events, reconciler, scanWith, states } = setup();
    await scanWith(evidence([found("%1", 10)], ["%1"]));
    const key = registry.entries()[0]!.key;
    registry.bind(key);
    // The restart: hold the pane, respawn (pid 11), the session reports its new process, release.
    await scanWith(evidence([found("%1", 10)], ["%1"]), () => {
      const release = reconciler.holdSeat("srv#%1", 10_000);
      registry.bind(key, found("%1", 11));
      release();
    });
    await scanWith(evidence([found("%1", 11)], ["%1"]));
    expect(states()).toEqual(["%1:11:live"]);
    expect(events).toEqual(["discovered %1 10"]);
  });

  it("an agent registered while the scan ran is not counted against by that scan", async () => {
    const { registry, events, scanWith, states } = setup();
    // The scan looked before the pane existed; the agent registered itself meanwhile.
    await scanWith(evidence([], []), () => {
      registry.onDiscovered(found("%1", 10));
      registry.bind(registry.entries()[0]!.key);
    });
    // One genuine miss later it is still there: only one miss was counted.
    await scanWith(evidence([], []));
    expect(states()).toEqual(["%1:10:live"]);
    await scanWith(evidence([], []));
    expect(states()).toEqual([]);
    expect(events).toEqual(["removed srv#%1"]);
  });

  it("an agent moved while the scan ran is not put back in its old pane", async () => {
    const { registry, scanWith } = setup();
    await scanWith(evidence([found("%1", 10)], ["%1"]));
    const key = registry.entries()[0]!.key;
    registry.bind(key);
    await scanWith(evidence([found("%1", 10)], ["%1", "%5"]), () => {
      registry.bind(key, found("%5", 10));
    });
    expect(registry.entries().map((entry) => entry.seatKey)).toEqual(["srv#%5"]);
  });

  it("a hold taken while the scan ran fences it, though released before it answered", async () => {
    const { registry, reconciler, scanWith, states } = setup();
    await scanWith(evidence([found("%1", 10)], ["%1"]));
    registry.bind(registry.entries()[0]!.key);
    await scanWith(evidence([], ["%1"]));
    // Had the mid-scan hold been forgotten, this would be the second miss: dormant.
    await scanWith(evidence([], ["%1"]), () => {
      reconciler.holdSeat("srv#%1", 10_000)();
    });
    expect(states()).toEqual(["%1:10:live"]);
  });

  it("a suppression made while the scan ran is not ended by that scan", async () => {
    const { registry, reconciler, scanWith, states } = setup();
    await scanWith(evidence([found("%1", 10)], ["%1"]));
    const [entry] = registry.entries();
    // The scan's table was read before the process existed... as far as it knows.
    await scanWith(evidence([], ["%1"]), () => {
      reconciler.suppress(entry!.agent);
      registry.onRemoved(entry!);
    });
    await scanWith(evidence([found("%1", 10)], ["%1"]));
    expect(states()).toEqual([]);
  });
});

describe("a scan has a time limit", () => {
  function fakeTimers() {
    const pending = new Map<number, () => void>();
    let next = 0;
    return {
      fire: () => {
        for (const [handle, run] of [...pending]) {
          pending.delete(handle);
          run();
        }
      },
      timers: {
        setInterval: () => 0,
        clearInterval: () => undefined,
        setTimeout: (run: () => void) => {
          next += 1;
          pending.set(next, run);
          return next;
        },
        clearTimeout: (handle: unknown) => {
          pending.delete(handle as number);
        },
      },
    };
  }

  it("a scan that never answers is no answer, not a miss, and the next trigger runs", async () => {
    const clock = fakeTimers();
    const { registry, events, reconciler, manual, scanWith, states } = setup({
      timers: clock.timers,
      scanTimeoutMs: 5000,
    });
    await scanWith(evidence([found("%1", 10)], ["%1"]));
    const started = manual.next();
    const hung = reconciler.trigger();
    await started;
    clock.fire();
    await hung;
    expect(events.at(-1)).toBe("no evidence: the scan did not answer within 5000 ms");
    // The next trigger runs a scan of its own; the hung scan's late answer changes nothing.
    await scanWith(evidence([], ["%1"]));
    // Had the hung scan counted as a miss, this second one would have made the pane dormant.
    expect(events).not.toContain("dormant srv#%1");
    manual.answerLate(evidence([], []));
    await scanWith(evidence([found("%1", 10)], ["%1"]));
    expect(states()).toEqual(["%1:10:live"]);
    expect(reconciler.scans).toBe(4);
    expect(registry.entries()).toHaveLength(1);
  });
});
