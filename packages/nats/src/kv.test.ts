// The key-value primitives against a real nats-server, connected as a member with the
// permissions `accountsConfig` gives it: what the roster's store is built on.

import { NATS_SERVER_MISSING } from "@muster/test-support";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import {
  type Bucket,
  createKey,
  deleteKey,
  MAX_VALUE_BYTES,
  openBucket,
  putKey,
  readKey,
  swapKey,
  watchKeys,
} from "./_kv.js";
import { listKeys } from "./_list.js";
import { teamResources } from "./_team-name.js";

let teams: TestTeams;
let connections: NatsConnection[] = [];
let bucket: Bucket;

beforeAll(async () => {
  teams = await startTeams({ "acme/app": ["alice", "bob"] });
  const opened = await Promise.all([
    teams.connect("acme/app", "alice"),
    teams.connect("acme/app", "bob"),
  ]);
  connections = opened.map((result) => {
    if (!result.ok) throw new Error(result.error);
    return result.connection;
  });
  bucket = await openBucket(connections[0]!, teamResources(teams.id("acme/app")).bucket);
}, 30_000);

afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  await teams?.stop();
});

describe.skipIf(NATS_SERVER_MISSING)("the key-value primitives on a real server", () => {
  test("32 racers create one key: exactly one wins, every other is told conflict", async () => {
    const racers = await Promise.all(
      Array.from({ length: 32 }, async (_, index) => {
        const own = await openBucket(
          connections[index % 2]!,
          teamResources(teams.id("acme/app")).bucket,
        );
        return createKey(own, "labels.race", JSON.stringify({ holder: `s${index}` }));
      }),
    );
    expect(racers.filter((result) => result.ok)).toHaveLength(1);
    expect(
      racers
        .filter((result) => !result.ok)
        .every((result) => !result.ok && result.reason === "conflict"),
    ).toBe(true);
    const winner = racers.findIndex((result) => result.ok);
    expect(JSON.parse((await readKey(bucket, "labels.race"))!.value)).toEqual({
      holder: `s${winner}`,
    });
  });

  test("compare-and-swap: a stale revision is refused and changes nothing", async () => {
    const created = await createKey(bucket, "cards.c1", "v1");
    if (!created.ok) throw new Error("create");
    const swapped = await swapKey(bucket, "cards.c1", "v2", created.revision);
    expect(swapped.ok).toBe(true);
    expect(await swapKey(bucket, "cards.c1", "v3", created.revision)).toEqual({
      ok: false,
      reason: "conflict",
    });
    expect((await readKey(bucket, "cards.c1"))?.value).toBe("v2");
  });

  test("compare-and-delete: only at the revision judged; then the key may be created again", async () => {
    const created = await createKey(bucket, "labels.gone", "old");
    if (!created.ok) throw new Error("create");
    const rewritten = await swapKey(bucket, "labels.gone", "new", created.revision);
    if (!rewritten.ok) throw new Error("swap");
    expect(await deleteKey(bucket, "labels.gone", created.revision)).toEqual({
      ok: false,
      reason: "conflict",
    });
    expect((await readKey(bucket, "labels.gone"))?.value).toBe("new");
    expect((await deleteKey(bucket, "labels.gone", rewritten.revision)).ok).toBe(true);
    expect(await readKey(bucket, "labels.gone")).toBeUndefined();
    expect((await createKey(bucket, "labels.gone", "again")).ok).toBe(true);
  });

  test("put and list: whole records under a prefix, deleted ones left out", async () => {
    for (let index = 0; index < 20; index += 1)
      await putKey(bucket, `sessions.s${index}`, JSON.stringify({ id: `s${index}` }));
    const doomed = await readKey(bucket, "sessions.s3");
    await deleteKey(bucket, "sessions.s3", doomed!.revision);
    const listed = await listKeys(bucket, "sessions.");
    expect(listed.map((entry) => entry.key).sort()).toEqual(
      Array.from({ length: 20 }, (_, index) => `sessions.s${index}`)
        .filter((key) => key !== "sessions.s3")
        .sort(),
    );
    expect(await listKeys(bucket, "nothing-here.")).toEqual([]);
  });

  test("a listing while every key is rewritten (heartbeats) has each key once, at its newest", async () => {
    // Seen on two hosts' beaters: a key rewritten during the listing had its old message gone
    // (one per key) and its new one delivered after the others, so a listing counting messages
    // returned one key twice and missed another.
    const keys = Array.from({ length: 6 }, (_, index) => `beats.m${index}`);
    for (const key of keys) await putKey(bucket, key, JSON.stringify({ beat: 0 }));
    let writing = true;
    const writers = keys.map(async (key, index) => {
      for (let beat = 1; writing; beat += 1) {
        await putKey(bucket, key, JSON.stringify({ beat }));
        await new Promise((resolve) => setTimeout(resolve, index));
      }
    });
    try {
      for (let round = 0; round < 40; round += 1) {
        const listed = await listKeys(bucket, "beats.");
        expect(listed.map((entry) => entry.key).sort()).toEqual([...keys].sort());
      }
    } finally {
      writing = false;
      await Promise.all(writers);
    }
    // Once the writes stop, each key is listed at its last value.
    const listed = await listKeys(bucket, "beats.");
    for (const entry of listed) expect(entry.value).toBe((await readKey(bucket, entry.key))!.value);
  }, 30_000);

  test("a value over the limit is refused before it is sent, and the server refuses it too", async () => {
    await expect(
      putKey(bucket, "sessions.big", "x".repeat(MAX_VALUE_BYTES + 1)),
    ).rejects.toMatchObject({ code: "EFBIG" });
    // The bucket's own limit stands even for a client that skips the check.
    await expect(
      bucket.kv.put("sessions.big", new Uint8Array(MAX_VALUE_BYTES + 1)),
    ).rejects.toThrow();
    expect(await readKey(bucket, "sessions.big")).toBeUndefined();
  });

  test("a watch tells every change under its prefix, from the other member too", async () => {
    const seen: string[] = [];
    const watch = await watchKeys(bucket, "board.", (key, operation) =>
      seen.push(`${operation} ${key}`),
    );
    const other = await openBucket(connections[1]!, teamResources(teams.id("acme/app")).bucket);
    await putKey(other, "board.c7", "{}");
    const entry = await readKey(other, "board.c7");
    await deleteKey(other, "board.c7", entry!.revision);
    await putKey(other, "sessions.not-watched", "{}");
    await expect.poll(() => seen, { timeout: 10_000 }).toEqual(["PUT board.c7", "DEL board.c7"]);
    watch.stop();
  });
});
