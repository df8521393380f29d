// Reconciler figures on synthetic snapshots: discovery over panes × processes, and one reconcile
// pass over tracked agents, each at three sizes to show the growth. Target: under 20 ms at 1,000
// panes × 10,000 processes and at 1,000 agents.
//
// Each figure is also timed in CPU time (process.cpuUsage: every thread of the process, GC
// included): on a loaded machine a 10 ms pass is preempted where a 1 ms one is not, so wall-clock
// figures and ratios between sizes overstate the cost and the growth.
import {
  BUILTIN_ENGINES,
  createAgentRegistry,
  createReconciler,
  discoverAgents,
  scanResult,
} from "@muster/reconciler";
import { syntheticSnapshot } from "@muster/test-support";
import { type BenchRow, median } from "../src/bench-kit.ts";

/** Median wall and CPU milliseconds of `action`, after a warm-up. */
async function measureCpu(action: () => Promise<unknown>, runs: number) {
  for (let index = 0; index < 3; index += 1) await action();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const usage = process.cpuUsage();
    const started = performance.now();
    await action();
    wall.push(performance.now() - started);
    const spent = process.cpuUsage(usage);
    cpu.push((spent.user + spent.system) / 1000);
  }
  return { wallMs: median(wall), cpuMs: median(cpu) };
}

async function discovery(rows: BenchRow[]) {
  const wall: Record<number, number> = {};
  const cpu: Record<number, number> = {};
  for (const panes of [10, 100, 1000]) {
    const snapshot = syntheticSnapshot(panes);
    const measured = await measureCpu(async () => discoverAgents(snapshot, BUILTIN_ENGINES), 21);
    wall[panes] = measured.wallMs;
    cpu[panes] = measured.cpuMs;
    const name = `reconciler: discovery, ${panes.toLocaleString("en")} panes × ${snapshot.processes.length.toLocaleString("en")} processes`;
    const reference = (figures: Record<number, number>, unit: string) =>
      panes > 10
        ? {
            name: `${(panes / 10).toLocaleString("en")} panes, ×10${unit}`,
            medianMs: figures[panes / 10]! * 10,
          }
        : undefined;
    const target = (ms: number) => (panes === 1000 ? { text: "< 20 ms", met: ms < 20 } : undefined);
    rows.push({
      name,
      medianMs: wall[panes]!,
      reference: reference(wall, ""),
      target: target(wall[panes]!),
    });
    rows.push({
      name: `${name}, CPU time`,
      medianMs: cpu[panes]!,
      reference: reference(cpu, ", CPU time"),
      target: target(cpu[panes]!),
    });
  }
}

/** A row per size, each against ten times the size below measured in the same run. */
function growthRow(name: string, figures: Record<number, number>, count: number, unit: string) {
  const below = figures[count / 10];
  return {
    name: `reconciler: one pass over ${count.toLocaleString("en")} agents${name}`,
    medianMs: figures[count]!,
    reference:
      below === undefined
        ? undefined
        : { name: `${(count / 10).toLocaleString("en")} agents, ×10${unit}`, medianMs: below * 10 },
  };
}

async function passes(rows: BenchRow[]) {
  const wall: Record<number, number> = {};
  const cpu: Record<number, number> = {};
  for (const count of [100, 1000, 10000]) {
    const snapshot = syntheticSnapshot(count * 2);
    const evidence = scanResult(
      { servers: [{ server: "srv", panes: snapshot.panes }], processes: snapshot.processes },
      BUILTIN_ENGINES,
    );
    if (!evidence.ok || evidence.agents.length !== count)
      throw new Error("synthetic snapshot is off");
    const registry = createAgentRegistry();
    const reconciler = createReconciler({
      scan: async () => evidence,
      ...registry,
      current: registry.entries,
      clock: Date.now,
    });
    // One scan discovers them all; the figure is a pass over a registry that already holds them.
    await reconciler.trigger();
    if (registry.entries().length !== count) throw new Error("the first scan did not track them");
    const measured = await measureCpu(() => reconciler.trigger(), 21);
    wall[count] = measured.wallMs;
    cpu[count] = measured.cpuMs;
    const target = (ms: number) => (count === 1000 ? { text: "< 20 ms", met: ms < 20 } : undefined);
    rows.push({ ...growthRow("", wall, count, ""), target: target(measured.wallMs) });
    rows.push({
      ...growthRow(", CPU time", cpu, count, ", CPU time"),
      target: target(measured.cpuMs),
    });
  }
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  await discovery(rows);
  await passes(rows);
  return rows;
}
