// R3 on a real three-node cluster (routes on loopback): the team's bucket and mail stream keep
// three copies, and a node killed mid-way loses no acknowledged write and no exclusive create.
// Under `pnpm test:long` only: a restarted node takes 2-15 s to serve again here.

import { LONG_TESTS, NATS_SERVER_MISSING } from "@muster/test-support";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { settled } from "../test/cluster-kit.js";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { createKey, openBucket } from "./_kv.js";
import { listKeys } from "./_list.js";
import { Mailboxes } from "./_mailbox.js";
import { teamResources } from "./_team-name.js";

let teams: TestTeams;
const connections: NatsConnection[] = [];

beforeAll(async () => {
  if (!LONG_TESTS) return;
  teams = await startTeams({ "acme/app": ["alice", "bob"] }, { cluster: true });
}, 60_000);

afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  await teams?.stop();
});

describe.skipIf(!LONG_TESTS || NATS_SERVER_MISSING)("a three-node cluster", () => {
  test("R3: a node killed loses no acknowledged write, and claims stay exclusive", async () => {
    const connected = await teams.connect("acme/app", "alice");
    if (!connected.ok) throw new Error(connected.error);
    connections.push(connected.connection);
    const names = teamResources(teams.id("acme/app"));
    const bucket = await settled(() =>
      openBucket(connected.connection, names.bucket, { replicas: 3 }),
    );
    const mail = await settled(() => Mailboxes.open(connected.connection, names, { replicas: 3 }));
    expect((await bucket.kv.status()).replicas).toBe(3);
    await settled(() => mail.ensure("b1"));
    const acknowledged: string[] = [];
    for (let index = 0; index < 20; index += 1) {
      if (index === 10) await teams.server.nodes[1]!.kill();
      await settled(() => createKey(bucket, `labels.l${index}`, `s${index}`));
      await settled(() => mail.append("b1", "alice", `m${index}`, `body ${index}`));
      acknowledged.push(`m${index}`);
    }
    await teams.server.nodes[1]!.restart();
    const racers = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        settled(() => createKey(bucket, "labels.race", `s${index}`)),
      ),
    );
    expect(racers.filter((result) => result.ok)).toHaveLength(1);
    const listed = await settled(() => listKeys(bucket, "labels."));
    expect(listed.length).toBe(21);
    // A consumer led by the restarted node delivers what its replica has caught up on: late, not
    // lost. Every acknowledged message arrives, each once.
    await expect
      .poll(async () => (await settled(() => mail.unread("b1"))).map((message) => message.id), {
        timeout: 30_000,
        interval: 250,
      })
      .toEqual(acknowledged);
  }, 60_000);
});
