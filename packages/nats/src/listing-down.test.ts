// The attack on a listing with a node down, on a real three-node cluster with R3 (routes on
// loopback), under `pnpm test:long` only. A team on R3 keeps working with one node of three down:
// a node is killed, every key is rewritten and each write acknowledged, and the keys are listed
// 20 times through a connection to the two left. Each listing must answer, within 2 s, every key
// with its acknowledged value (nats-server 2.9.10 places a listing's consumer on the dead peer
// too, and a listing that waited for it took the client's 5 s request timeout, then failed).
// Bounded: 20 listings of 2 s at most; every server ended by pid.
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
const LISTINGS = 20;
const LISTING_MS = 2_000;

let teams: TestTeams;
/** The longest a whole, fresh listing took (ms). */
let slowest = 0;
const connections: NatsConnection[] = [];

beforeAll(async () => {
  if (!LONG_TESTS) return;
  teams = await startTeams({ "acme/down": ["alice"] }, { cluster: true });
}, 60_000);

afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
  await teams?.stop();
});

/** A bucket opened through a connection to the given servers only. */
const bucketThrough = (servers: string[]) =>
  throughServers(teams, { team: "acme/down", member: "alice", servers }, connections);

/** One listing, bounded: what it answered, or why not, and how long it took. */
async function timedListing(bucket: Bucket): Promise<string> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${LISTING_MS} ms`)), LISTING_MS);
  });
  try {
    const listed = await Promise.race([listKeys(bucket, "labels."), late]);
    const old = listed.filter((entry) => entry.value !== "v1");
    if (listed.length !== KEYS) return `${listed.length} of ${KEYS} keys`;
    if (old.length > 0) return `${old.length} of ${KEYS} keys old`;
    slowest = Math.max(slowest, Date.now() - started);
    return "ok";
  } catch (error) {
    return `failed after ${Date.now() - started} ms: ${error instanceof Error ? error.message : error}`;
  } finally {
    clearTimeout(timer);
  }
}

describe.skipIf(!LONG_TESTS)("a listing on a three-node cluster with a node down", () => {
  test("answers every key, fresh, within 2 s, 20 times of 20", async () => {
    const writer = await bucketThrough(teams.server.urls);
    for (let index = 0; index < KEYS; index += 1)
      await settled(() => putKey(writer, `labels.k${index}`, "v0"));
    const down = teams.server.nodes[2]!;
    await down.kill();
    const live = teams.server.urls.filter((url) => url !== down.url);
    const reader = await bucketThrough(live);
    for (let index = 0; index < KEYS; index += 1)
      await settled(() => putKey(reader, `labels.k${index}`, "v1"));
    const results: string[] = [];
    for (let listing = 0; listing < LISTINGS; listing += 1)
      results.push(await timedListing(reader));
    const failed = results.filter((result) => result !== "ok");
    console.log(
      `${LISTINGS - failed.length} of ${LISTINGS} listings whole and fresh, slowest ${slowest} ms`,
    );
    expect(failed, failed.join("\n")).toEqual([]);
  }, 120_000);
});
