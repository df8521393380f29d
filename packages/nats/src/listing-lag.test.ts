// The attack on a listing's values (not its keys), on a real three-node cluster with R3 (routes on
// loopback), under `pnpm test:long` only. A node is killed, every key is rewritten and each write
// acknowledged, the node is started again, and the keys are listed over and over through a
// connection to that node while it catches up: a listing read by a consumer placed on the
// replica still catching up would answer every key (the key set complete) with values older than
// ones already acknowledged. No listing may: each key's value is at least the acknowledged one.
// Bounded: 6 rounds, each listing for 4 s at most; every server ended by pid.
import { LONG_TESTS as LONG, NATS_SERVER_MISSING } from "@muster/test-support";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { settled, bucketThrough as throughServers } from "../test/cluster-kit.js";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { type Bucket, putKey } from "./_kv.js";
import { listKeys } from "./_list.js";

// Long, and on real nats-servers: skipped, saying so, where there is none.
const LONG_TESTS = LONG && !NATS_SERVER_MISSING;

const KEYS = 20;
const ROUNDS = 6;
const LISTING_MS = 4_000;

let teams: TestTeams;
const connections: NatsConnection[] = [];

beforeAll(async () => {
  if (!LONG_TESTS) return;
  teams = await startTeams({ "acme/lag": ["alice"] }, { cluster: true });
}, 60_000);

afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
  await teams?.stop();
});

/** A bucket opened through a connection to the given servers only. */
const bucketThrough = (servers: string[]) =>
  throughServers(teams, { team: "acme/lag", member: "alice", servers }, connections);

/** List `labels.` through `bucket` for a while; a listing with a value older than `round`'s is stale. */
async function listWhileCatchingUp(bucket: Bucket, round: number) {
  let listings = 0;
  let refused = 0;
  let stale = 0;
  let example = "";
  const until = Date.now() + LISTING_MS;
  while (Date.now() < until) {
    const listed = await listKeys(bucket, "labels.").catch(() => undefined);
    if (!listed) {
      refused += 1;
      continue;
    }
    listings += 1;
    expect(listed.length).toBe(KEYS);
    const old = listed.filter((entry) => entry.value !== `v${round}`);
    if (old.length === 0) continue;
    stale += 1;
    example ||= `${old.length} of ${KEYS} keys old, e.g. ${old[0]!.key}=${old[0]!.value} (revision ${old[0]!.revision})`;
  }
  return `round ${round}: ${listings} listings, ${stale} stale, ${refused} refused${example ? ` (${example})` : ""}`;
}

describe.skipIf(!LONG_TESTS)("a listing on a three-node cluster with a replica catching up", () => {
  test("never answers a value older than one already acknowledged", async () => {
    const writer = await bucketThrough(teams.server.urls);
    for (let index = 0; index < KEYS; index += 1)
      await settled(() => putKey(writer, `labels.k${index}`, "v0"));
    const rounds: string[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const node = teams.server.nodes[1 + (round % 2)]!;
      await node.kill();
      // Every key rewritten and acknowledged while the node is down, and a bulk for it to catch
      // up on (so that it takes a while).
      for (let index = 0; index < KEYS; index += 1)
        await settled(() => putKey(writer, `labels.k${index}`, `v${round}`));
      for (let index = 0; index < 300; index += 1)
        await settled(() => putKey(writer, `bulk.b${index}`, `${round}`.repeat(2_000)));
      await node.restart();
      const reader = await bucketThrough([node.url]);
      rounds.push(await listWhileCatchingUp(reader, round));
    }
    console.log(rounds.join("\n"));
    expect(
      rounds.filter((line) => !line.includes(", 0 stale,")),
      rounds.join("\n"),
    ).toEqual([]);
  }, 180_000);
});
