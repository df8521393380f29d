// The NATS store against the roster's store contract, on a real nats-server, connected as a member
// with the permissions `muster nats config` gives: what each call answers, under races and forgery.

import { NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { openNatsStore } from "./_open-store.js";
import type { NatsStore } from "./_store.js";
import { teamResources } from "./_team-name.js";

let teams: TestTeams;
const closers: (() => Promise<void>)[] = [];
let store: NatsStore;

const open = async () => {
  const team = { name: "acme/app", id: teams.id("acme/app") };
  const opened = await openNatsStore(teams.settings("acme/app", "alice"), team);
  if (!opened.ok) throw new Error(opened.error);
  closers.push(opened.close);
  return opened.store;
};

beforeAll(async () => {
  teams = await startTeams({ "acme/app": ["alice"] });
  store = await open();
}, 30_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await teams?.stop();
});

describe.skipIf(NATS_SERVER_MISSING)("the NATS store keeps the roster's contract", () => {
  test("it is a team's store, and says where it is", async () => {
    expect(await store.ready()).toEqual({ ok: true });
    expect(store.kind).toBe("nats");
    expect(store.where).toBe("the NATS team acme/app");
  });

  test("exclusive create: one of 16 racers in separate connections wins", async () => {
    // Connected one after another (16 handshakes at once outlast a loaded machine's timeouts);
    // the race is the creates, all at once.
    const stores: NatsStore[] = [];
    for (let index = 0; index < 16; index += 1) stores.push(await open());
    const results = await Promise.all(
      stores.map((each, index) => each.create("labels", "alice", `s${index}`)),
    );
    expect(results.filter((result) => result !== undefined)).toHaveLength(1);
    const winner = results.find((result) => result !== undefined)!;
    expect(await store.get("labels", "alice")).toEqual(winner);
  });

  test("compare-and-swap and compare-and-delete on the version", async () => {
    const first = await store.create("cards", "c1", "one");
    const second = await store.replace("cards", "c1", "two", first!.version);
    expect(second).toMatchObject({ ok: true, stored: { text: "two" } });
    expect(await store.replace("cards", "c1", "three", first!.version)).toEqual({
      ok: false,
      reason: "changed",
    });
    expect(await store.replace("cards", "c1", "three", "not-a-version")).toEqual({
      ok: false,
      reason: "changed",
    });
    expect(await store.remove("cards", "c1", first!.version)).toBe(false);
    expect(await store.remove("cards", "c1", second.ok ? second.stored.version : "")).toBe(true);
    expect(await store.get("cards", "c1")).toBeUndefined();
    expect(await store.remove("cards", "c1")).toBe(false);
    await store.put("cards", "c2", "x");
    expect(await store.remove("cards", "c2")).toBe(true);
  });

  test("keys with dots survive; list is whole; writtenAt is the server's", async () => {
    const before = Date.now() - 5_000;
    for (const key of ["a..b", "x.", "plain", "v1.2.3"])
      await store.put("leases", key, `value ${key}`);
    const listed = await store.list("leases");
    expect(listed.entries.map((entry) => entry.key).sort()).toEqual([
      "a..b",
      "plain",
      "v1.2.3",
      "x.",
    ]);
    expect(listed.entries.find((entry) => entry.key === "a..b")?.stored.text).toBe("value a..b");
    expect(await store.writtenAt("leases", "a..b")).toBeGreaterThan(before);
    expect(await store.writtenAt("leases", "absent")).toBeUndefined();
  });

  test("setAside moves junk out of the space and keeps it; a good value stays", async () => {
    await store.put("sessions", "junk", "{not json");
    await store.put("sessions", "good", '{"v":1}');
    const isJunk = (text: string | undefined) => text === undefined || !text.startsWith('{"v"');
    expect(await store.setAside("sessions", "good", isJunk)).toBe(false);
    expect(await store.setAside("sessions", "junk", isJunk)).toBe(true);
    expect((await store.list("sessions")).entries.map((entry) => entry.key)).toEqual(["good"]);
  });
});

describe.skipIf(NATS_SERVER_MISSING)("mailboxes in the NATS store", () => {
  test("unread takes nothing: two lookers see the same mail until it is acknowledged", async () => {
    const mail = store.mail;
    await expect(mail.deliver("nobody", "m0", "x")).rejects.toMatchObject({ code: "ENOENT" });
    await mail.ensure("bob");
    expect(await mail.deliver("bob", "m1", "one")).toBe("delivered");
    expect(await mail.deliver("bob", "m1", "one again")).toBe("duplicate");
    await mail.deliver("bob", "m2", "two");
    const other = (await open()).mail;
    const [mine, theirs] = await Promise.all([mail.unread("bob"), other.unread("bob")]);
    expect(mine.messages.map((message) => message.id).sort()).toEqual(["m1", "m2"]);
    expect(theirs.messages.map((message) => message.id).sort()).toEqual(["m1", "m2"]);
    expect(await mail.waiting("bob")).toMatchObject({ count: 2 });
    expect(await mail.ack("bob", ["m1", "zz", "../x"])).toEqual({
      acked: ["m1"],
      missing: ["zz", "../x"],
    });
    expect(await mail.deliver("bob", "m1", "late copy")).toBe("duplicate");
    expect(await mail.get("bob", "m1")).toMatchObject({ read: true, text: "one" });
    expect((await mail.read("bob")).messages.map((message) => message.id)).toEqual(["m1"]);
    expect(await mail.discard("bob", "m2.json", { setAside: true })).toBe(true);
    expect(await mail.waiting("bob")).toEqual({ count: 0 });
  });

  test("a watch wakes on new mail; retire keeps unread mail aside until cleared", async () => {
    const mail = store.mail;
    await mail.ensure("carol");
    let woke = 0;
    const watch = await mail.watch("carol", () => {
      woke += 1;
    });
    await mail.deliver("carol", "w1", "wake");
    await expect.poll(() => woke, { timeout: 10_000 }).toBe(1);
    watch.stop();
    expect((await mail.list()).mailboxes.map((box) => box.member)).toContain("carol");
    expect(await mail.retire("carol", Date.now())).toMatchObject({ unread: 1 });
    expect((await mail.list()).mailboxes.map((box) => box.member)).not.toContain("carol");
    expect(await mail.retire("carol", Date.now())).toBeUndefined();
    expect(await mail.clearRetired(Date.now() + 60_000)).toHaveLength(1);
  });
});

describe.skipIf(NATS_SERVER_MISSING)("receipts in the NATS store", () => {
  test("the first mark stands; a forged value is a stray; remove clears a receipt", async () => {
    const receipts = store.receipts;
    const mark = { member: "bob", phase: "delivered", at: new Date().toISOString(), how: "pi" };
    expect(await receipts.mark("r1", mark)).toBe(true);
    expect(await receipts.mark("r1", { ...mark, how: "mcp" })).toBe(false);
    // A value planted under a mark's key that names another message is refused as a mark.
    const { Kvm } = await import("@nats-io/kv");
    const connected = await teams.connect("acme/app", "alice");
    if (!connected.ok) throw new Error(connected.error);
    closers.push(() => connected.connection.close());
    const kv = await new Kvm(connected.connection).open(teamResources(teams.id("acme/app")).bucket);
    await kv.put("receipt.r1.eve.woke", '{"v":1,"message":"other"}');
    const read = await receipts.read("r1");
    expect(read.marks).toMatchObject([{ member: "bob", phase: "delivered", how: "pi" }]);
    expect(read.strays).toEqual([
      { name: "eve.woke.json", error: "is refused: it is not signed by any member" },
    ]);
    expect(await receipts.list()).toContainEqual({ id: "r1", loose: true, folded: false });
    expect(await receipts.remove("r1")).toEqual({ removed: true, warnings: [] });
    expect((await receipts.read("r1")).marks).toEqual([]);
  });

  test("a fold keeps every mark in one key, once; a later mark of a folded phase does not stand", async () => {
    const receipts = store.receipts;
    const at = new Date().toISOString();
    for (const phase of ["written", "delivered", "acknowledged"])
      await receipts.mark("r3", { member: "bob", phase, at });
    const before = await receipts.read("r3");
    expect(await receipts.fold("r3", before.marks)).toBe(true);
    expect(await receipts.list()).toContainEqual({ id: "r3", loose: false, folded: true });
    const after = await receipts.read("r3");
    expect(after.marks.map(({ folded: _f, name: _n, ...mark }) => mark)).toEqual(
      before.marks.map(({ name: _n, ...mark }) => mark),
    );
    expect(await receipts.mark("r3", { member: "bob", phase: "delivered", at: "x" })).toBe(false);
    expect(await receipts.mark("r3", { member: "bob", phase: "woke", at })).toBe(true);
    expect(await receipts.fold("r3", (await receipts.read("r3")).marks)).toBe(false);
    expect((await receipts.read("r3")).marks).toHaveLength(4);
  });

  test("a failed wake's mark is the latest one, with what the engine said", async () => {
    const receipts = store.receipts;
    const failed = (error: string) => ({
      member: "bob",
      phase: "wake-failed",
      at: new Date().toISOString(),
      how: "codex",
      error,
    });
    expect(await receipts.mark("r2", failed("first"), { latest: true })).toBe(true);
    expect(await receipts.mark("r2", failed("second"), { latest: true })).toBe(true);
    expect(await receipts.mark("r2", failed("third"))).toBe(false);
    expect((await receipts.read("r2")).marks).toMatchObject([
      { member: "bob", phase: "wake-failed", error: "second", name: "bob.wake-failed.json" },
    ]);
  });
});
