// What the three-node cluster tests share: a retry for the moments a cluster has no leader yet,
// and a bucket opened through a connection to chosen servers only (a lagging or surviving node).
import type { NatsConnection } from "@nats-io/transport-node";
import { connectTeam } from "../src/_connect.js";
import { type Bucket, openBucket } from "../src/_kv.js";
import { teamResources } from "../src/_team-name.js";
import type { TestTeams } from "./team-server.js";

/** A JetStream request right after a start or a kill can find no leader yet: retried a while. */
export async function settled<T>(action: () => Promise<T>, attempts = 80): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await action();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Team `team`'s R3 bucket, as `member`, through a connection to `servers` only (kept in `connections`). */
export async function bucketThrough(
  teams: TestTeams,
  at: { team: string; member: string; servers: string[] },
  connections: NatsConnection[],
): Promise<Bucket> {
  const settings = { ...teams.settings(at.team, at.member), servers: at.servers };
  const connected = await settled(async () => {
    const result = await connectTeam(settings, { timeoutMs: 5_000 });
    if (!result.ok) throw new Error(result.error);
    return result.connection;
  });
  connections.push(connected);
  const names = teamResources(teams.id(at.team));
  return settled(() => openBucket(connected, names.bucket, { replicas: 3 }));
}
