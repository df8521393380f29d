// `muster status --watch`: the team from the running reconcile loop, shown again at every change:
// on a terminal the interactive dashboard (_dashboard.ts, Ink), else one `status --json` document
// per change as NDJSON (--json), or the `status` text per change. The agents
// muster spawned are read from the spawn records and adopted as verified (the pane is still the
// one muster opened and runs the record's engine), not discovered a second time: they show the
// label they were spawned under even before they join.

import { setFlagsFromString } from "node:v8";
import { landQueueLine } from "@muster/core";
import {
  createAgentRegistry,
  createReconciler,
  type FoundAgent,
  type ScanResult,
} from "@muster/reconciler";
import type { SpawnRecord } from "@muster/tmux";
import {
  landQueue,
  readSpawnRecords,
  spawnedAgents,
  type TeamChanges,
  teamChanges,
} from "@muster/wiring";
import { renderInProgress } from "./_board-render.js";
import { cardsInProgress } from "./_board-team.js";
import type { Context } from "./_context.js";
import type { startDashboard } from "./_dashboard.js";
import type { DashboardData } from "./_dashboard-data.js";
import { dashboardOrder } from "./_dashboard-lines.js";
import { leaseSection } from "./_leases.js";
import { renderStatus, statusDocument } from "./_status.js";
import { downList } from "./_status-down-read.js";
import { agentViews, readMembers, type Scan, scanTmux } from "./_status-read.js";

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

/**
 * What a reading says, without the ages that grow every second: two readings with the same key
 * show the same team, so nothing is printed again.
 */
const changeKey = (document: object) =>
  JSON.stringify(document, (key, value) => (/AgeMs$|^ageMs$/.test(key) ? undefined : value));

type Board = Awaited<ReturnType<typeof cardsInProgress>>;

/**
 * One reading of the team: what `status --json` prints, and the text `status` prints; the board
 * read again unless the last reading's is handed in (the dashboard's, when no card changed).
 */
async function readTeam(
  context: Context,
  lastScan: Scan,
  seen: Parameters<typeof agentViews>[0],
  spawned: ReadonlyMap<string, string>,
  lastBoard?: Board,
) {
  const team = await context.team();
  // One after another: a large team's three readings at once hold three times the memory.
  const { members, warnings } = await readMembers(context);
  const leases = await leaseSection(context);
  const board = lastBoard ?? (await cardsInProgress(context));
  const roster = await context.roster();
  const land = await landQueue(roster);
  const agents = agentViews(seen, members, team, spawned);
  const down = await downList(context, members);
  const document = {
    ...statusDocument(team, members, lastScan, agents, warnings, roster.store, down),
    leases: leases.json,
    board,
    land,
  };
  const text = () =>
    `${renderStatus(context, team, members, lastScan, agents, roster.store, down)}${leases.text}${
      board.held.length > 0 || board.blocked.length > 0 || board.lead
        ? `\n${renderInProgress(context, board)}`
        : ""
    }${landQueueLine(land) ? `\n${landQueueLine(land)}` : ""}`;
  const dashboard: DashboardData = {
    team: team.name,
    members: dashboardOrder(members),
    down,
    cards: board.held,
    blocked: board.blocked,
    lead: board.lead,
    land: landQueueLine(land),
    leases: (leases.json ?? []).map(({ pattern, holder, mode }) => ({ pattern, holder, mode })),
    warnings: document.warnings,
    agents: [...document.agents, ...document.elsewhere].map(({ pane, engine, label }) => ({
      pane,
      engine,
      label,
    })),
  };
  return { document, text, dashboard, board };
}

type Dashboard = ReturnType<typeof startDashboard>;

/**
 * Keep V8's young generation at its first size: a reading of a large team (1,000 records, 10,000
 * cards) keeps many objects alive at once, V8 grows the young generation for them (to 64 MiB a
 * half) and never gives it back, so the watch at rest held 1.6× a small team's memory. Read by
 * V8 at each growth, so it holds when set now.
 */
const keepYoungGenerationSmall = () => setFlagsFromString("--semi-space-growth-factor=1");

/** Redraw from the reconcile loop until q or Ctrl-C (a terminal), or a signal or closed output. */
export async function watchStatus(context: Context) {
  keepYoungGenerationSmall();
  const registry = createAgentRegistry();
  let lastScan: Scan | undefined;
  let lastKey: string | undefined;
  const terminal = Boolean(context.io.stdout.isTTY) && !context.json;
  // Opened at the first reading, once: two readings may be drawn at the same time.
  let dashboard: Promise<Dashboard> | undefined;
  let opened: (drawn: Dashboard) => void = () => undefined;
  const whenOpen = new Promise<Dashboard>((resolve) => {
    opened = resolve;
  });
  // The dashboard reads the team again only on a change or after a rest (@muster/wiring's teamChanges); in
  // between it only ages what it shows.
  let changes: TeamChanges | undefined;
  let shown: { data: DashboardData; at: number; scan: string; board: Board } | undefined;
  const draw = async () => {
    if (!lastScan) return;
    const seen = registry.entries().map((entry) => ({ ...entry.agent, state: entry.state }));
    if (terminal) {
      changes ??= await watchTeam(context);
      const scan = JSON.stringify(seen);
      const started = Date.now();
      if (!shown || scan !== shown.scan || changes.due(started)) {
        const board = changes.boardDue(started) ? undefined : shown?.board;
        const reading = await readTeam(context, lastScan, seen, adoption.spawned, board);
        changes.read(started, Date.now(), board === undefined);
        shown = { data: reading.dashboard, at: started, scan, board: reading.board };
      }
      const { data, at } = shown;
      dashboard ??= openDashboard(context, data, at).then((drawn) => {
        opened(drawn);
        return drawn;
      });
      return (await dashboard).show(data, at);
    }
    const reading = await readTeam(context, lastScan, seen, adoption.spawned);
    const key = changeKey(reading.document);
    if (key === lastKey) return;
    lastKey = key;
    // One document per change, one per line: `muster status --watch --json | jq` reads each.
    if (context.json) return context.emitLine(reading.document);
    context.write(`${reading.text()}\n\n`);
  };
  const reconciler = scanLoop(context, registry, draw, (scan) => {
    lastScan = scan;
  });
  const adoption = createAdoption(context, (agent) => reconciler.adoptVerified(agent));
  // Each refresh: first adopt what muster spawned since the last (one scan, only when there is a
  // new record), then scan.
  const tick = () =>
    adoption
      .adoptNew(async () => (await scanTmux(context)).result)
      .catch((error: unknown) => {
        if (!terminal) context.warn(`spawned agents not adopted: ${String(error)}`);
      })
      .then(() => reconciler.trigger())
      .catch(() => undefined);
  await untilFinished(context, tick, {
    // On a terminal the dashboard's own end (q, Ctrl-C read as a key) ends the watch.
    done: terminal ? whenOpen.then((drawn) => drawn.done) : undefined,
    stop: () => {
      changes?.close();
      void dashboard?.then((drawn) => drawn.stop());
      return reconciler.stop();
    },
  });
}

/** The reconcile loop over tmux, drawing after each scan; `scanned` is told each scan. */
function scanLoop(
  context: Context,
  registry: ReturnType<typeof createAgentRegistry>,
  draw: () => Promise<void>,
  scanned: (scan: Scan) => void,
) {
  return createReconciler({
    scan: async () => {
      const scan = await scanTmux(context);
      scanned(scan);
      return scan.result;
    },
    ...registry,
    current: registry.entries,
    onScanStatus: () => draw().catch(() => undefined),
    clock: Date.now,
    timers: {
      setInterval,
      clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
      setTimeout,
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    },
  });
}

/**
 * Tick every 2 s until a signal, a closed output or `end.done`; then stop the ticks and
 * `end.stop()`, once.
 */
function untilFinished(
  context: Context,
  tick: () => unknown,
  end: { done: Promise<unknown> | undefined; stop: () => Promise<void> },
) {
  return new Promise<void>((resolve) => {
    let interval: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      // The handlers stay: Ink's exit hook (signal-exit) kills the process again with the signal
      // (exit 130) when it finds itself the signal's last listener.
      clearInterval(interval);
      end.stop().finally(resolve);
    };
    // On a terminal Ink reads Ctrl-C as a key (raw mode); a SIGINT from elsewhere ends it too.
    process.on("SIGINT", finish);
    process.on("SIGTERM", finish);
    // A closed output (`| head`) ends the watch like Ctrl-C does.
    context.onOutputClosed(finish);
    interval = setInterval(tick, 2000);
    void tick();
    void end.done?.then(finish);
  });
}

/** The dashboard, loaded (Ink, React) only here. */
async function openDashboard(context: Context, first: DashboardData, readAt: number) {
  // React picks its build by NODE_ENV as it loads: unset (as for most people) it loads the
  // development build, which checks and records every render, at several times the cost of a
  // redraw at rest. Loaded as production; the variable is given back for what the dashboard runs.
  const env = process.env;
  const before = env.NODE_ENV;
  env.NODE_ENV = "production";
  try {
    const { startDashboard } = await import("./_dashboard.js");
    return startDashboard(context, first, readAt);
  } finally {
    if (before === undefined) delete env.NODE_ENV;
    else env.NODE_ENV = before;
  }
}

/** The team's changes, watched where the team is a folder. */
async function watchTeam(context: Context): Promise<TeamChanges> {
  const roster = await context.roster();
  return teamChanges(roster.store.kind === "folder" ? roster.dir : undefined);
}
