// Opening a team's store on NATS: connect with the member's settings, open (or create) the team's
// bucket with its limits, mark it a muster team, and hand back the store and how to close it.

import { BUCKET_FIX } from "./_bucket-settings.js";
import { type ConnectOptions, type ConnectRefusal, connectTeam } from "./_connect.js";
import { keysOf } from "./_keys.js";
import { openBucket } from "./_kv.js";
import type { NatsSettings } from "./_settings.js";
import { type NatsStore, natsStore } from "./_store.js";
import { teamResources } from "./_team-name.js";
import { trust } from "./_trust.js";

export type StoreOpened =
  | { ok: true; store: NatsStore; close(): Promise<void> }
  | { ok: false; reason: ConnectRefusal | "no-bucket" | "bad-bucket"; error: string; fix: string };

export type OpenStoreOptions = ConnectOptions & {
  /** Copies a cluster keeps of the bucket (3 on a three-node cluster). Default 1. */
  replicas?: 1 | 3 | 5 | undefined;
  /** Put the team's settings back on a bucket made with others: the operator's `muster nats init`. */
  fix?: boolean | undefined;
  /** Called once with each value refused (forged, or written by a key not its writer's). */
  onRefused?: ((line: string) => void) | undefined;
  /** How long a record keeps its label from another key (ms; the roster's TTL, default 1 h). */
  liveForMs?: number | undefined;
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
      create: true,
      fix: options.fix,
    });
    await bucket.kv
      .create("meta.team", JSON.stringify({ v: 1, muster: "team", name: team.name }))
      .catch(() => undefined);
    return {
      ok: true,
      store: natsStore(
        bucket,
        team.name,
        settings.servers,
        trust(bucket, keysOf(connected.seed), {
          onRefused: options.onRefused,
          liveForMs: options.liveForMs,
        }),
      ),
      close: () => connection.close(),
    };
  } catch (error) {
    await connection.close().catch(() => undefined);
    if ((error as { code?: unknown }).code === "EBUCKET")
      return {
        ok: false,
        reason: "bad-bucket",
        error: (error as Error).message.replace(`: ${BUCKET_FIX}`, ""),
        fix: BUCKET_FIX,
      };
    return {
      ok: false,
      reason: "no-bucket",
      error: `cannot open the team's bucket on NATS: ${error instanceof Error ? error.message : String(error)}`,
      fix: "check that the server runs JetStream and that these credentials are the team's (muster nats config)",
    };
  }
}
