// Opening a team's store on NATS: connect with the member's settings, open (or create) the team's
// bucket with its limits, mark it a muster team, and hand back the store and how to close it.
import { type ConnectOptions, type ConnectRefusal, connectTeam } from "./_connect.js";
import { openBucket } from "./_kv.js";
import type { NatsSettings } from "./_settings.js";
import { type NatsStore, natsStore } from "./_store.js";
import { teamResources } from "./_team-name.js";

export type StoreOpened =
  | { ok: true; store: NatsStore; close(): Promise<void> }
  | { ok: false; reason: ConnectRefusal | "no-bucket"; error: string; fix: string };

export type OpenStoreOptions = ConnectOptions & {
  /** Copies a cluster keeps of the bucket (3 on a three-node cluster). Default 1. */
  replicas?: 1 | 3 | 5 | undefined;
};

/** Open the NATS store of the team `team` (its name and id) with the member's settings. */
export async function openNatsStore(
  settings: NatsSettings,
  team: { name: string; id: string },
  options: OpenStoreOptions = {},
): Promise<StoreOpened> {
  const connected = await connectTeam(settings, options);
  if (!connected.ok) return connected;
  const connection = connected.connection;
  try {
    const bucket = await openBucket(connection, teamResources(team.id).bucket, {
      replicas: options.replicas,
    });
    await bucket.kv
      .create("meta.team", JSON.stringify({ v: 1, muster: "team", name: team.name }))
      .catch(() => undefined);
    return {
      ok: true,
      store: natsStore(bucket, team.name, settings.servers),
      close: () => connection.close(),
    };
  } catch (error) {
    await connection.close().catch(() => undefined);
    return {
      ok: false,
      reason: "no-bucket",
      error: `cannot open the team's bucket on NATS: ${error instanceof Error ? error.message : String(error)}`,
      fix: "check that the server runs JetStream and that these credentials are the team's (muster nats config)",
    };
  }
}
