// Attacks on the team's bucket by a member holding the team's credentials, on a real nats-server
// run with the configuration muster prints: one message with `Nats-Rollup: all` must not empty
// the team, no member may make or change the bucket's stream, a bucket made first with other
// settings is refused (not used as it is), and no member reads the replies sent to another.

import { NATS_SERVER_MISSING, startNatsServer } from "@muster/test-support";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, headers, type NatsConnection, nanos } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { createKey, openBucket, readKey } from "./_kv.js";
import { listKeys } from "./_list.js";
import { teamResources } from "./_team-name.js";

let teams: TestTeams;
const connections: NatsConnection[] = [];
const as = async (team: string, name: string) => {
  const connected = await teams.connect(team, name);
  if (!connected.ok) throw new Error(connected.error);
  connections.push(connected.connection);
  return connected.connection;
};

beforeAll(async () => {
  // acme's bucket is made by its operator (as `muster nats init` does); fresh's is not made yet.
  teams = await startTeams(
    { "acme/app": ["alice", "bob"], "fresh/app": ["carol"] },
    { unmade: ["fresh/app"] },
  );
}, 30_000);

afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  await teams?.stop();
});

describe.skipIf(NATS_SERVER_MISSING)("a member cannot wipe or reshape the team's bucket", () => {
  test("one message with Nats-Rollup: all is refused; every key stays", async () => {
    const acme = teamResources(teams.id("acme/app"));
    const alice = await openBucket(await as("acme/app", "alice"), acme.bucket);
    for (const key of ["sessions.a", "labels.l", "unread.a.m1"])
      expect((await createKey(alice, key, `{"v":1}`)).ok).toBe(true);
    const bob = jetstream(await as("acme/app", "bob"));
    const rollup = headers();
    rollup.set("Nats-Rollup", "all");
    await expect(
      bob.publish(`$KV.${acme.bucket}.sessions.b`, "", { headers: rollup }),
    ).rejects.toThrow();
    const sub = headers();
    sub.set("Nats-Rollup", "sub");
    await expect(
      bob.publish(`$KV.${acme.bucket}.sessions.a`, "", { headers: sub }),
    ).rejects.toThrow();
    expect((await listKeys(alice, "")).map((entry) => entry.key).sort()).toEqual(
      expect.arrayContaining(["labels.l", "sessions.a", "unread.a.m1"]),
    );
  });

  test("no member makes, updates, purges or deletes the bucket's stream", async () => {
    const acme = teamResources(teams.id("acme/app"));
    const jsm = await jetstreamManager(await as("acme/app", "bob"));
    const stream = `KV_${acme.bucket}`;
    const info = await jsm.streams.info(stream);
    await expect(
      jsm.streams.update(stream, { ...info.config, max_age: nanos(4_000) }),
    ).rejects.toThrow();
    await expect(jsm.streams.purge(stream)).rejects.toThrow();
    await expect(jsm.streams.delete(stream)).rejects.toThrow();
    expect((await jsm.streams.info(stream)).config.max_age).toBe(0);
    // A team whose bucket is not made yet: a member can neither make it with its own settings
    // nor have muster make it; it is told who makes it.
    const fresh = teamResources(teams.id("fresh/app"));
    const carol = await as("fresh/app", "carol");
    await expect(
      (await jetstreamManager(carol)).streams.add({
        name: `KV_${fresh.bucket}`,
        subjects: [`$KV.${fresh.bucket}.>`],
        max_age: nanos(4_000),
      }),
    ).rejects.toThrow();
    await expect(openBucket(carol, fresh.bucket)).rejects.toThrow(/muster nats init/);
    // The operator's credentials make it, with the team's settings; then the member uses it.
    await openBucket(await as("fresh/app", "operator"), fresh.bucket, { fix: true });
    const made = await openBucket(carol, fresh.bucket);
    expect((await createKey(made, "sessions.c", "{}")).ok).toBe(true);
  });

  test("no member subscribes to the replies another member is sent", async () => {
    const acme = teamResources(teams.id("acme/app"));
    const bobConnection = await as("acme/app", "bob");
    const seen: string[] = [];
    const errors: string[] = [];
    for (const subject of ["_INBOX.>", ">", `${teams.inboxPrefix("acme/app", "alice")}.>`])
      bobConnection.subscribe(subject, {
        callback: (error, message) => {
          if (error) errors.push(error.message);
          else seen.push(message.subject);
        },
      });
    await bobConnection.flush();
    const alice = await openBucket(await as("acme/app", "alice"), acme.bucket);
    await createKey(alice, "labels.secret", `{"v":1,"word":"private"}`);
    expect((await readKey(alice, "labels.secret"))?.value).toContain("private");
    await listKeys(alice, "labels.");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen.filter((subject) => !subject.startsWith("$KV."))).toEqual([]);
    expect(errors.join(" ")).toMatch(/permission/i);
  });
});

describe.skipIf(NATS_SERVER_MISSING)("a bucket made first with other settings", () => {
  let server: Awaited<ReturnType<typeof startNatsServer>>;
  let open: NatsConnection;
  beforeAll(async () => {
    server = await startNatsServer();
    open = await connect({ servers: server.url });
  }, 30_000);
  afterAll(async () => {
    await open?.close();
    await server?.stop();
  });

  test("is refused with what to run, and `fix` puts the team's settings back", async () => {
    // Made by someone else first: members vanish after 4 s, no limits, rollups allowed.
    await new Kvm(open).create("muster-odd", { history: 1, ttl: 4_000 });
    await expect(openBucket(open, "muster-odd")).rejects.toThrow(
      /muster-odd.*other settings.*max_age.*muster nats init/,
    );
    const fixed = await openBucket(open, "muster-odd", { fix: true });
    const config = (await fixed.jsm.streams.info("KV_muster-odd")).config;
    expect(config).toMatchObject({ max_age: 0, allow_rollup_hdrs: false, deny_purge: true });
    await expect(openBucket(open, "muster-odd")).resolves.toBeDefined();
  });
});
