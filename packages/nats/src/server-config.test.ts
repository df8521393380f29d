// The server configuration muster prints for an operator, run by a real nats-server: one team
// cannot reach another's buckets, streams or subjects, and a member sends only as itself.

import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { NATS_SERVER_MISSING } from "@muster/test-support";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { connectTeam } from "./_connect.js";
import { createKey, openBucket, readKey } from "./_kv.js";
import { Mailboxes } from "./_mailbox.js";
import { isLoopbackListen, listenRefusal, newMemberKey, serverConfig } from "./_server-config.js";
import { teamResources } from "./_team-name.js";

let teams: TestTeams;
const connections: NatsConnection[] = [];
const member = async (team: string, name: string) => {
  const connected = await teams.connect(team, name);
  if (!connected.ok) throw new Error(connected.error);
  connections.push(connected.connection);
  return connected.connection;
};

// Where there is no nats-server the cases that need one are skipped, and so is their server: a
// hook outside their describe runs even then (`pnpm test` on a machine without one failed here).
beforeAll(async () => {
  if (NATS_SERVER_MISSING) return;
  teams = await startTeams({ "acme/app": ["alice", "bob"], "rival/app": ["mallory"] });
}, 30_000);

afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  await teams?.stop();
});

describe.skipIf(NATS_SERVER_MISSING)("the operator's server configuration", () => {
  test("nobody connects without credentials, or with another's seed", async () => {
    const stranger = await connectTeam(
      { ...teams.settings("acme/app", "alice"), credsFile: "/dev/null" },
      { timeoutMs: 3_000 },
    );
    expect(stranger).toMatchObject({ ok: false, reason: "bad-credentials" });
    // A FIFO planted where the seed should be is refused, not waited on.
    const fifo = `${mkdtempSync("/tmp/muster-nats-fifo-")}/seed.nk`;
    execFileSync("mkfifo", [fifo]);
    expect(
      await connectTeam({ ...teams.settings("acme/app", "alice"), credsFile: fifo }),
    ).toMatchObject({ ok: false, reason: "bad-credentials" });
    const dir = mkdtempSync("/tmp/muster-nats-unknown-");
    writeFileSync(`${dir}/x.nk`, newMemberKey().seed, { mode: 0o600 });
    const unknown = await connectTeam(
      { ...teams.settings("acme/app", "alice"), credsFile: `${dir}/x.nk` },
      { timeoutMs: 3_000, reconnect: false },
    );
    expect(unknown).toMatchObject({ ok: false, reason: "unauthorised" });
    if (!unknown.ok) expect(unknown.fix).toContain("MUSTER_NATS_CREDS");
  });

  test("one team can neither read nor write another team's bucket or stream", async () => {
    const acme = teamResources(teams.id("acme/app"));
    const alice = await member("acme/app", "alice");
    const bucket = await openBucket(alice, acme.bucket);
    await createKey(bucket, "labels.alice", "secret");
    await (await Mailboxes.open(alice, acme)).ensure("a1");
    const mallory = await member("rival/app", "mallory");
    // mallory's account has no such bucket, and the permissions forbid naming acme's.
    await expect(
      new Kvm(mallory).open(acme.bucket).then((kv) => kv.get("labels.alice")),
    ).rejects.toThrow();
    await expect(openBucket(mallory, acme.bucket)).rejects.toThrow();
    const jsm = await jetstreamManager(mallory);
    await expect(jsm.streams.info(acme.mailStream)).rejects.toThrow();
    // Publishing into acme's subjects from the other account reaches nothing of acme's.
    mallory.publish(`${acme.mailPrefix}.a1.mallory`, "hi");
    await mallory.flush();
    expect(await (await Mailboxes.open(alice, acme)).count("a1")).toBe(0);
    expect((await readKey(bucket, "labels.alice"))?.value).toBe("secret");
  });

  test("a member sends mail only under its own name", async () => {
    const acme = teamResources(teams.id("acme/app"));
    const bob = await member("acme/app", "bob");
    const mail = await Mailboxes.open(bob, acme);
    await mail.ensure("a2");
    await mail.append("a2", "bob", "ok1", "from bob");
    await expect(mail.append("a2", "alice", "forged", "from 'alice'")).rejects.toThrow();
    expect((await mail.unread("a2")).map((message) => [message.id, message.sender])).toEqual([
      ["ok1", "bob"],
    ]);
  });

  test("a member cannot delete or purge the team's stream or bucket", async () => {
    const acme = teamResources(teams.id("acme/app"));
    const bob = await member("acme/app", "bob");
    const jsm = await jetstreamManager(bob);
    await expect(jsm.streams.delete(acme.mailStream)).rejects.toThrow();
    await expect(jsm.streams.purge(`KV_${acme.bucket}`)).rejects.toThrow();
    expect((await jsm.streams.info(acme.mailStream)).config.name).toBe(acme.mailStream);
  });

  test("the whole configuration parses as a server would run it", () => {
    const text = serverConfig({
      teams: [
        {
          id: teams.id("acme/app"),
          name: "acme/app",
          members: [{ member: "alice", publicKey: newMemberKey().publicKey }],
        },
      ],
      storeDir: "/var/lib/nats",
      tls: { cert: "/etc/nats/cert.pem", key: "/etc/nats/key.pem" },
    });
    expect(text).toContain("tls { cert_file:");
    expect(() =>
      serverConfig({
        teams: [{ id: "x", name: "x", members: [{ member: "../evil", publicKey: "U" }] }],
        storeDir: "/s",
      }),
    ).toThrow(/member name/);
  });
});

describe("where the server listens", () => {
  const config = (listen: string | undefined, tls = false) =>
    serverConfig({
      teams: [],
      storeDir: "/s",
      listen,
      tls: tls ? { cert: "/c.pem", key: "/k.pem" } : undefined,
    });

  test("this machine only by default; beyond loopback only with TLS", () => {
    expect(config(undefined)).toContain('listen: "127.0.0.1:4222"');
    for (const local of ["127.0.0.1:4222", "localhost:4222", "[::1]:4222", "127.0.0.5:1"])
      expect(isLoopbackListen(local)).toBe(true);
    for (const wide of ["0.0.0.0:4222", "4222", "[::]:4222", "10.0.0.1:4222", "127.0.0.1.evil:1"]) {
      expect(isLoopbackListen(wide)).toBe(false);
      expect(listenRefusal(wide, false)).toContain("--tls-cert");
      expect(() => config(wide)).toThrow(/beyond this machine/);
      expect(config(wide, true)).toContain(`listen: "${wide}"`);
    }
  });
});
