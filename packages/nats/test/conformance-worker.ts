// How a process opens a roster on a conformance team on NATS: the config is the JSON the harness
// wrote (the server, a credentials file, the team), the clock and process facts are real. Plain
// Node imports this file (worker.ts of @muster/roster-conformance), so it names built packages only.
import { type NatsSettings, type OpenStoreOptions, openNatsStore } from "@muster/nats";
import { nodeSleep, processFacts } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";

export type WorkerConfig = { settings: NatsSettings; team: { name: string; id: string } };

/** A roster on the team on NATS, with the real clock and process facts, and how to close it. */
export async function natsRoster(
  { settings, team }: WorkerConfig,
  options: OpenStoreOptions = {},
): Promise<{ roster: Roster; close(): Promise<void> }> {
  const opened = await openNatsStore(settings, team, { timeoutMs: 10_000, ...options });
  if (!opened.ok) throw new Error(opened.error);
  const rostered = await openRoster({
    store: opened.store,
    clock: Date.now,
    processes: processFacts,
    sleep: nodeSleep,
  });
  if (!rostered.ok) throw new Error(rostered.error);
  return { roster: rostered.roster, close: opened.close };
}

/** The worker's way in: the team named by `config`. */
export async function openConformanceRoster(config: string): Promise<Roster> {
  return (await natsRoster(JSON.parse(config) as WorkerConfig)).roster;
}
