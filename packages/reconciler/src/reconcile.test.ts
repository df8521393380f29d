import { beforeEach, describe, expect, it } from "vitest";
import { found, scanOf, type World } from "../test/world.js";
import {
  createAgentRegistry,
  createReconciler,
  type Reconciler,
  type ScanResult,
} from "./index.js";

let world: World;
let now: number;
let registry: ReturnType<typeof createAgentRegistry>;
let events: string[];
let reconciler: Reconciler;

function setup(options: { scan?: () => Promise<ScanResult> } = {}) {
  registry = createAgentRegistry();
  events = [];
  reconciler = createReconciler({
    scan: options.scan ?? (async () => scanOf(world)),
    current: registry.entries,
    onDiscovered: (agent) => {
      events.push(`discovered ${agent.pane} ${agent.pid}`);
      registry.onDiscovered(agent);
    },
    onObserved: (tracked, agent) => registry.onObserved(tracked, agent),
    onDormant: (tracked) => {
      events.push(`dormant ${tracked.seatKey}`);
      registry.onDormant(tracked);
    },
    onRemoved: (tracked) => {
      events.push(`removed ${tracked.seatKey}`);
      registry.onRemoved(tracked);
    },
    onAvailability: (server, available) => {
      events.push(`${server} ${available ? "up" : "down"}`);
    },
    onScanStatus: (status) => {
      events.push(
        status.ok
          ? `ready ${status.scan} (${registry.entries().length} tracked)`
          : `no evidence: ${status.error}`,
      );
    },
    clock: () => now,
  });
}

const states = () =>
  registry.entries().map((entry) => `${entry.agent.pane}:${entry.agent.pid}:${entry.state}`);
const scan = async (times = 1) => {
  for (let index = 0; index < times; index += 1) await reconciler.trigger();
};

beforeEach(() => {
  now = 0;
  world = { agents: [found("%1", 10)], panes: ["%1"] };
  setup();
});

describe("misses", () => {
  it("a live pane without its engine becomes dormant after exactly 2 confirmed scans, once", async () => {
    await scan();
    world.agents = [];
    await scan();
    expect(states()).toEqual(["%1:10:live"]);
    await scan();
    expect(states()).toEqual(["%1:10:dormant"]);
    await scan(3);
    expect(events.filter((event) => event.startsWith("dormant"))).toEqual(["dormant srv#%1"]);
  });

  it("a pane gone for exactly 2 confirmed scans is removed", async () => {
    await scan();
    world = { agents: [], panes: [] };
    await scan();
    expect(states()).toHaveLength(1);
    await scan();
    expect(states()).toEqual([]);
    expect(events).toContain("removed srv#%1");
  });

  it("a counted miss is forgotten when the agent is seen again", async () => {
    await scan();
    world.agents = [];
    await scan();
    world.agents = [found("%1", 10)];
    await scan();
    world.agents = [];
    await scan();
    expect(states()).toEqual(["%1:10:live"]);
  });

  it("honours a caller's miss count", async () => {
    registry = createAgentRegistry();
    const removed: string[] = [];
    const custom = createReconciler({
      scan: async () => scanOf(world),
      current: registry.entries,
      onDiscovered: registry.onDiscovered,
      onObserved: registry.onObserved,
      onDormant: registry.onDormant,
      onRemoved: (tracked) => {
        removed.push(tracked.seatKey);
        registry.onRemoved(tracked);
      },
      misses: 4,
      clock: () => now,
    });
    await custom.trigger();
    world = { agents: [], panes: [] };
    for (let index = 0; index < 3; index += 1) await custom.trigger();
    expect(removed).toEqual([]);
    await custom.trigger();
    expect(removed).toEqual(["srv#%1"]);
  });
});

describe("no evidence is never a miss", () => {
  it.each([
    ["an unreadable process table", { agents: [], panes: [], tableFails: true }],
    ["a server that did not answer", { agents: [], panes: [], unavailable: ["srv"] }],
    ["an ambiguous placement", { agents: [], panes: ["%1"], ambiguous: ["%1"] }],
    ["a per-pane check that answered unknown", { agents: [], panes: ["%1"], unknown: ["%1"] }],
  ] satisfies [string, World][])("%s", async (_, blind) => {
    await scan();
    world = blind;
    await scan(5);
    expect(states()).toEqual(["%1:10:live"]);
    // And the count did not quietly grow: two real misses are still needed.
    world = { agents: [], panes: ["%1"] };
    await scan();
    expect(states()).toEqual(["%1:10:live"]);
    await scan();
    expect(states()).toEqual(["%1:10:dormant"]);
  });

  it("an unreadable table is reported, and so is a scan that throws", async () => {
    world = { agents: [], panes: [], tableFails: true };
    await scan();
    expect(events).toEqual(["no evidence: EACCES reading /proc"]);
    setup({
      scan: async () => {
        throw new Error("tmux died");
      },
    });
    await scan();
    expect(events).toEqual(["no evidence: tmux died"]);
  });

  it("reports a server going down and coming back", async () => {
    await scan();
    world = { ...world, unavailable: ["srv"] };
    await scan(2);
    world = { agents: [found("%1", 10)], panes: ["%1"] };
    await scan();
    expect(events.filter((event) => event.startsWith("srv"))).toEqual(["srv down", "srv up"]);
  });
});

describe("identity and placement", () => {
  it("a reused pid (another start time) in a bound agent's pane is a new agent", async () => {
    await scan();
    registry.bind(registry.entries()[0]!.key);
    world.agents = [found("%1", 10, "2")];
    await scan(2);
    expect(states()).toEqual(["%1:10:dormant", "%1:10:live"]);
    expect(registry.entries().map((entry) => entry.identity)).toEqual(["pi:10:1", "pi:10:2"]);
  });

  it("an agent never bound is matched by its placement", async () => {
    await scan();
    world.agents = [found("%1", 77)];
    await scan(3);
    expect(states()).toEqual(["%1:77:live"]);
    expect(events.filter((event) => event.startsWith("discovered"))).toEqual(["discovered %1 10"]);
  });

  it("a moved agent keeps its identity in its new pane", async () => {
    await scan();
    world = { agents: [found("%5", 10)], panes: ["%1", "%5"] };
    await scan();
    expect(registry.entries().map((entry) => entry.seatKey)).toEqual(["srv#%5"]);
  });

  it("readiness is reported only after the registry was updated for that scan", async () => {
    await scan();
    expect(events).toEqual(["discovered %1 10", "ready 1 (1 tracked)"]);
  });
});

describe("suppress, hold, adopt", () => {
  it("a deleted agent is not rediscovered until a scan proves its process gone", async () => {
    await scan();
    const [entry] = registry.entries();
    reconciler.suppress(entry!.agent);
    registry.onRemoved(entry!);
    await scan(3);
    expect(states()).toEqual([]);
    // The process exits; a new one with the same pid later is a new agent.
    world = { agents: [], panes: ["%1"] };
    await scan();
    world = { agents: [found("%1", 10, "9")], panes: ["%1"] };
    await scan();
    expect(states()).toEqual(["%1:10:live"]);
  });

  it("a held seatKey is skipped by both halves until released", async () => {
    await scan();
    const release = reconciler.holdSeat("srv#%1", 10_000);
    world = { agents: [found("%1", 11, "2")], panes: ["%1"] };
    registry.bind(registry.entries()[0]!.key);
    await scan(3);
    expect(states()).toEqual(["%1:10:live"]);
    release();
    await scan(2);
    expect(states()).toEqual(["%1:10:dormant", "%1:11:live"]);
  });

  it("holds overlap: the seatKey stays held while any caller's hold remains", async () => {
    await scan();
    const first = reconciler.holdSeat("srv#%1", 10_000);
    const second = reconciler.holdSeat("srv#%1", 10_000);
    world = { agents: [], panes: ["%1"] };
    first();
    first(); // a second release of the same hold ends nothing more
    await scan(3);
    expect(states()).toEqual(["%1:10:live"]);
    second();
    await scan(2);
    expect(states()).toEqual(["%1:10:dormant"]);
  });

  it("a hold releases itself after its timeout", async () => {
    await scan();
    reconciler.holdSeat("srv#%1", 10_000);
    world = { agents: [], panes: ["%1"] };
    await scan(3);
    expect(states()).toEqual(["%1:10:live"]);
    now = 10_000;
    await scan(2);
    expect(states()).toEqual(["%1:10:dormant"]);
  });

  it("adoptVerified goes through the same callbacks without a scan", async () => {
    await reconciler.adoptVerified(found("%3", 30));
    expect(states()).toEqual(["%3:30:live"]);
    expect(reconciler.scans).toBe(0);
    world = { agents: [found("%3", 30)], panes: ["%3"] };
    await scan();
    expect(states()).toEqual(["%3:30:live"]);
    await reconciler.adoptVerified(found("%3", 30));
    expect(events.filter((event) => event.startsWith("discovered"))).toEqual(["discovered %3 30"]);
  });
});

describe("serialized, coalesced scans", () => {
  it("triggers during a scan cause exactly one more scan", async () => {
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const inScan = new Promise<void>((resolve) => {
      started = resolve;
    });
    let scans = 0;
    setup({
      scan: async () => {
        scans += 1;
        if (scans === 1) {
          started();
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        }
        return scanOf(world);
      },
    });
    const first = reconciler.trigger();
    await inScan;
    const waiting = [reconciler.trigger(), reconciler.trigger(), reconciler.trigger()];
    expect(waiting[0]).toBe(waiting[2]);
    release();
    await Promise.all([first, ...waiting]);
    expect(scans).toBe(2);
    expect(reconciler.scans).toBe(2);
  });

  it("start() scans at once and on each tick; stop() waits for the scan under way", async () => {
    const ticks: (() => void)[] = [];
    let cleared = 0;
    registry = createAgentRegistry();
    const timed = createReconciler({
      scan: async () => scanOf(world),
      ...registry,
      current: registry.entries,
      clock: () => now,
      timers: {
        setInterval: (run) => ticks.push(run),
        clearInterval: () => {
          cleared += 1;
        },
      },
    });
    timed.start(2000);
    ticks[0]!();
    await timed.stop();
    expect(timed.scans).toBe(2);
    expect(cleared).toBe(1);
    expect(registry.entries()).toHaveLength(1);
  });
});
