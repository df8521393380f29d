// Reconciler figures on synthetic snapshots: discovery over panes × processes, and one reconcile
// pass over tracked agents, each at three sizes to show the growth. Target: under 20 ms at 1,000
// panes × 10,000 processes and at 1,000 agents.
import {
  BUILTIN_ENGINES,
  createAgentRegistry,
  createReconciler,
  discoverAgents,
  type FoundAgent,
  probeResult,
} from "@muster/reconciler";
import { syntheticSnapshot } from "@muster/test-support";
import { type BenchRow, measure } from "../src/bench-kit.ts";

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const discovery: Record<number, number> = {};
  for (const panes of [10, 100, 1000]) {
    const snapshot = syntheticSnapshot(panes);
    const { medianMs } = await measure(() => discoverAgents(snapshot, BUILTIN_ENGINES), {
      runs: 21,
    });
    discovery[panes] = medianMs;
    rows.push({
      name: `reconciler: discovery, ${panes.toLocaleString("en")} panes × ${snapshot.processes.length.toLocaleString("en")} processes`,
      medianMs,
      reference:
        panes > 10
          ? {
              name: `${(panes / 10).toLocaleString("en")} panes, ×10`,
              medianMs: discovery[panes / 10]! * 10,
            }
          : undefined,
      target: panes === 1000 ? { text: "< 20 ms", met: medianMs < 20 } : undefined,
    });
  }
  const passes: Record<number, number> = {};
  for (const count of [100, 1000, 10000]) {
    const snapshot = syntheticSnapshot(count * 2);
    const look = probeResult(
      { backends: [{ backend: "srv", panes: snapshot.panes }], processes: snapshot.processes },
      BUILTIN_ENGINES,
    );
    if (!look.ok || look.agents.length !== count) throw new Error("synthetic snapshot is off");
    const registry = createAgentRegistry();
    const reconciler = createReconciler({
      probe: async () => look,
      ...registry,
      clock: Date.now,
    });
    for (const agent of look.agents as FoundAgent[]) await reconciler.adoptVerified(agent);
    const { medianMs } = await measure(() => reconciler.trigger(), { runs: 11 });
    passes[count] = medianMs;
    rows.push({
      name: `reconciler: one pass over ${count.toLocaleString("en")} agents`,
      medianMs,
      reference:
        count > 100
          ? {
              name: `${(count / 10).toLocaleString("en")} agents, ×10`,
              medianMs: passes[count / 10]! * 10,
            }
          : undefined,
      target: count === 1000 ? { text: "< 20 ms", met: medianMs < 20 } : undefined,
    });
  }
  return rows;
}
