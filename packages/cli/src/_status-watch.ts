// `muster status --watch`: the team redrawn from the running reconcile loop until Ctrl-C. The agents
// muster spawned are read from the spawn records and adopted as verified (the pane is still the
// one muster opened and runs the record's engine), not discovered a second time: they show the
// label they were spawned under even before they join.
import {
  createAgentRegistry,
  createReconciler,
  type FoundAgent,
  type ScanResult,
} from "@muster/reconciler";
import type { SpawnRecord } from "@muster/tmux";
import { readSpawnRecords, spawnedAgents } from "@muster/wiring";
import type { Context } from "./_context.js";
import {
  agentViews,
  readMembers,
  renderStatus,
  type Scan,
  scanTmux,
  statusDocument,
} from "./_status.js";

/** The spawn records not adopted yet, and the agents among them one scan shows, adopted. */
function createAdoption(context: Context, adopt: (agent: FoundAgent) => Promise<void>) {
  /** agent identity → the label muster spawned it under. */
  const spawned = new Map<string, string>();
  const seen = new Set<string>();
  const key = (record: SpawnRecord) => `${record.label}:${record.pid}:${record.start}`;
  return {
    spawned,
    /** New records since the last scan; the scan only when there is one. */
    async adoptNew(scan: () => Promise<ScanResult>) {
      const team = await context.team();
      const { records } = await readSpawnRecords(team).catch(() => ({ records: [] }));
      const fresh = records.filter((record) => !seen.has(key(record)));
      if (fresh.length === 0) return;
      for (const { record, agent } of await spawnedAgents(context.run, fresh, await scan())) {
        seen.add(key(record));
        spawned.set(agent.identity, record.label);
        await adopt(agent);
      }
    },
  };
}

/** Redraw in place from the reconcile loop until Ctrl-C, then restore the terminal. */
export async function watchStatus(context: Context) {
  const team = await context.team();
  const registry = createAgentRegistry();
  let lastScan: Scan | undefined;
  const terminal = Boolean(context.io.stdout.isTTY) && !context.json;
  const draw = async () => {
    if (!lastScan) return;
    const { members, warnings } = await readMembers(context);
    const agents = agentViews(
      registry.entries().map((entry) => ({ ...entry.agent, state: entry.state })),
      members,
      team,
      adoption.spawned,
    );
    if (context.json) {
      // One document per refresh, one per line: `muster status --watch --json | jq` reads each.
      return context.emitLine(statusDocument(team, members, lastScan, agents, warnings));
    }
    const frame = renderStatus(context, team, members, lastScan, agents);
    context.write(
      terminal
        ? `\u001b[H\u001b[2J${frame}\n${context.color.dim("watching · Ctrl-C to stop")}\n`
        : `${frame}\n\n`,
    );
  };
  const reconciler = createReconciler({
    scan: async () => {
      lastScan = await scanTmux(context);
      return lastScan.result;
    },
    ...registry,
    current: registry.entries,
    onScanStatus: draw,
    clock: Date.now,
    timers: {
      setInterval,
      clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
      setTimeout,
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    },
  });
  const adoption = createAdoption(context, (agent) => reconciler.adoptVerified(agent));
  // Each refresh: first adopt what muster spawned since the last (one scan, only when there is a
  // new record), then scan.
  const tick = () =>
    adoption
      .adoptNew(async () => (await scanTmux(context)).result)
      .catch((error: unknown) => context.warn(`spawned agents not adopted: ${String(error)}`))
      .then(() => reconciler.trigger())
      .catch(() => undefined);
  if (terminal) context.write("\u001b[?1049h\u001b[?25l");
  const restore = () => {
    if (terminal) context.write("\u001b[?25h\u001b[?1049l");
  };
  await new Promise<void>((resolve) => {
    let interval: NodeJS.Timeout | undefined;
    const finish = () => {
      process.off("SIGINT", finish);
      process.off("SIGTERM", finish);
      clearInterval(interval);
      reconciler.stop().finally(() => {
        restore();
        resolve();
      });
    };
    process.on("SIGINT", finish);
    process.on("SIGTERM", finish);
    // A closed output (`| head`) ends the watch like Ctrl-C does.
    context.onOutputClosed(finish);
    interval = setInterval(tick, 2000);
    void tick();
  });
}
