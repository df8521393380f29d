// The mailbox primitives against a real nats-server: one stream, one durable consumer per member,
// explicit acknowledgement and redelivery; connected as members with their own permissions.

import { NATS_SERVER_MISSING } from "@muster/test-support";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { MAX_MAIL_BYTES, Mailboxes } from "./_mailbox.js";
import { teamResources } from "./_team-name.js";

let teams: TestTeams;
const connections: NatsConnection[] = [];
let alice: Mailboxes;
let bob: Mailboxes;

const open = async (member: string) => {
  const connected = await teams.connect("acme/app", member);
  if (!connected.ok) throw new Error(connected.error);
  connections.push(connected.connection);
  return Mailboxes.open(connected.connection, teamResources(teams.id("acme/app")));
};

beforeAll(async () => {
  teams = await startTeams({ "acme/app": ["alice", "bob"] });
  alice = await open("alice");
  bob = await open("bob");
}, 30_000);

afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  await teams?.stop();
});

describe.skipIf(NATS_SERVER_MISSING)("mailboxes on a real server", () => {
  test("mail waits, oldest first, until acknowledged; the sender is the subject's", async () => {
    await bob.ensure("bob1");
    for (const id of ["m1", "m2", "m3"]) await alice.append("bob1", "alice", id, `body ${id}`);
    const first = await bob.unread("bob1");
    expect(first.map((mail) => [mail.id, mail.sender, mail.data])).toEqual([
      ["m1", "alice", "body m1"],
      ["m2", "alice", "body m2"],
      ["m3", "alice", "body m3"],
    ]);
    expect(await bob.count("bob1")).toBe(3);
    expect(await bob.ack("bob1", ["m2", "nope"])).toEqual({ acked: ["m2"], missing: ["nope"] });
    expect(await bob.count("bob1")).toBe(2);
    expect((await bob.unread("bob1")).map((mail) => mail.id)).toEqual(["m1", "m3"]);
  });

  test("what one process held and gave back is delivered again, to another process", async () => {
    await bob.ensure("bob2");
    await alice.append("bob2", "alice", "r1", "redeliver me");
    expect((await bob.unread("bob2")).map((mail) => mail.id)).toEqual(["r1"]);
    bob.release("bob2");
    const again = await (await open("bob")).unread("bob2");
    expect(again.map((mail) => [mail.id, mail.deliveries])).toEqual([["r1", 2]]);
  });

  test("a message sent twice with one id is stored once", async () => {
    await bob.ensure("bob3");
    const first = await alice.append("bob3", "alice", "d1", "once");
    const second = await alice.append("bob3", "alice", "d1", "once");
    expect(first.duplicate).toBe(false);
    expect(second).toEqual({ seq: first.seq, duplicate: true });
    expect(await bob.count("bob3")).toBe(1);
  });

  test("mail over the limit is refused before it is sent; bad ids never become subjects", async () => {
    await expect(
      alice.append("bob1", "alice", "big", "x".repeat(MAX_MAIL_BYTES + 1)),
    ).rejects.toMatchObject({ code: "EFBIG" });
    for (const bad of ["*", ">", "a.b", "", "a b"])
      await expect(alice.append(bad, "alice", "x1", "hi")).rejects.toMatchObject({
        code: "EINVAL",
      });
  });

  test("a watch wakes on new mail without taking it", async () => {
    await bob.ensure("bob4");
    const woke: string[] = [];
    const watch = await bob.watch("bob4", (sender) => woke.push(sender));
    await alice.append("bob4", "alice", "w1", "wake up");
    await expect.poll(() => woke, { timeout: 10_000 }).toEqual(["alice"]);
    expect((await bob.unread("bob4")).map((mail) => mail.id)).toEqual(["w1"]);
    watch.stop();
  });
});
