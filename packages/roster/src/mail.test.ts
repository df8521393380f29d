import { beforeEach, describe, expect, it } from "vitest";
import type { memoryFs } from "../test/memory-fs.js";
import { memoryTeam } from "../test/memory-team.js";
import { MAX_BODY_BYTES, type Roster } from "./index.js";

const DIR = "/teams/t";
let now = 0;
let memory: ReturnType<typeof memoryFs>;
let roster: Roster;

beforeEach(async () => {
  now = Date.parse("2026-11-30T12:00:00.000Z");
  ({ memory, roster } = await memoryTeam({
    dir: DIR,
    clock: () => now,
    labels: ["alice", "bob", "carol"],
  }));
});

const bodies = async (id: string) => {
  const inbox = await roster.receive(id);
  if (!inbox.ok) throw new Error(inbox.error);
  return inbox.messages.map((message) => message.body);
};

describe("send", () => {
  it("delivers to a label, case-insensitively, from an id or a label; the receipt names each recipient", async () => {
    const receipt = await roster.send({
      from: "s1",
      to: "BOB",
      body: "hi bob",
      urgent: true,
      hops: 1,
    });
    expect(receipt).toMatchObject({ ok: true, to: [{ id: "s2", label: "bob", duplicate: false }] });
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.messages[0]).toMatchObject({
      from: { id: "s1", label: "alice" },
      to: "BOB",
      body: "hi bob",
      urgent: true,
      hops: 1,
    });
    expect(await roster.send({ from: "carol", to: "bob", body: "me too" })).toMatchObject({
      ok: true,
    });
    expect(await bodies("s2")).toEqual(["hi bob", "me too"]);
  });

  it("`all` reaches every live member but the sender, with one message id", async () => {
    const receipt = await roster.send({ from: "alice", to: "all", body: "standup" });
    expect(receipt.ok && receipt.to.map((recipient) => recipient.label)).toEqual(["bob", "carol"]);
    expect(await bodies("s1")).toEqual([]);
    const [bob, carol] = [await roster.receive("s2"), await roster.receive("s3")];
    expect(bob.ok && carol.ok && bob.messages[0]?.id === carol.messages[0]?.id).toBe(true);
  });

  it.each([
    {
      case: "an empty body",
      input: { from: "alice", to: "bob", body: "  \n" },
      reason: "empty-body",
    },
    {
      case: "a 10 MiB body",
      input: { from: "alice", to: "bob", body: "x".repeat(10 * 1024 * 1024) },
      reason: "body-too-large",
    },
    {
      case: "one byte over 64 KiB",
      input: { from: "alice", to: "bob", body: `${"é".repeat(MAX_BODY_BYTES / 2)}x` },
      reason: "body-too-large",
    },
    {
      case: "a sender that is not a member",
      input: { from: "mallory", to: "bob", body: "hi" },
      reason: "not-member",
    },
    {
      case: "a label nobody holds",
      input: { from: "alice", to: "dave", body: "hi" },
      reason: "no-live-holder",
    },
    {
      case: "a message to oneself, by label",
      input: { from: "s1", to: "ALICE", body: "note to self" },
      reason: "to-self",
    },
    {
      case: "a message to oneself, from the label",
      input: { from: "alice", to: "alice", body: "note to self" },
      reason: "to-self",
    },
    {
      case: "a message id that is a path",
      input: { from: "alice", to: "bob", body: "hi", id: "../../x" },
      reason: "bad-input",
    },
    {
      case: "negative hops",
      input: { from: "alice", to: "bob", body: "hi", hops: -1 },
      reason: "bad-input",
    },
  ])("refuses $case with nothing written", async ({ input, reason }) => {
    const before = memory.files(DIR);
    expect(await roster.send(input)).toMatchObject({ ok: false, reason });
    expect(memory.files(DIR)).toEqual(before);
  });

  it("a guest (not a member) may send when it names itself, marked as such", async () => {
    const receipt = await roster.send({
      from: "outsider-1",
      to: "bob",
      body: "hello from outside",
      guest: "pi-ash (not joined)",
    });
    expect(receipt).toMatchObject({ ok: true, to: [{ label: "bob" }] });
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.messages[0]?.from).toEqual({
      id: "outsider-1",
      label: "pi-ash (not joined)",
      guest: true,
    });
    expect(await roster.send({ from: "../x", to: "bob", body: "x", guest: "g" })).toMatchObject({
      reason: "not-member",
    });
    expect(await roster.send({ from: "o2", to: "bob", body: "x", guest: "a\nb" })).toMatchObject({
      reason: "bad-input",
    });
  });

  it("accepts exactly 64 KiB", async () => {
    expect(
      await roster.send({ from: "alice", to: "bob", body: "é".repeat(MAX_BODY_BYTES / 2) }),
    ).toMatchObject({ ok: true });
  });

  it("refuses a label whose holder is gone, saying so", async () => {
    now += 31_000;
    await roster.heartbeat("s1");
    const receipt = await roster.send({ from: "alice", to: "bob", body: "hi" });
    expect(receipt).toMatchObject({ ok: false, reason: "no-live-holder" });
    expect(receipt.ok === false && receipt.error).toContain('"bob" is gone (heartbeat-stale)');
  });

  it("`all` with nobody else live is refused", async () => {
    await roster.leave("s2");
    await roster.leave("s3");
    expect(await roster.send({ from: "alice", to: "all", body: "anyone?" })).toMatchObject({
      ok: false,
      reason: "no-recipients",
    });
  });

  it("a retried send with the same id is recognised, not delivered twice, even after it was read", async () => {
    expect(await roster.send({ from: "alice", to: "bob", body: "once", id: "m-1" })).toMatchObject({
      to: [{ duplicate: false }],
    });
    expect(await roster.send({ from: "alice", to: "bob", body: "once", id: "m-1" })).toMatchObject({
      to: [{ duplicate: true }],
    });
    await roster.ack("s2", ["m-1"]);
    expect(await roster.send({ from: "alice", to: "bob", body: "once", id: "m-1" })).toMatchObject({
      to: [{ duplicate: true }],
    });
    expect(await bodies("s2")).toEqual([]);
  });
});

describe("receive and ack", () => {
  it("returns new mail oldest first; ack moves it to read", async () => {
    for (const body of ["one", "two", "three"]) {
      await roster.send({ from: "alice", to: "bob", body });
      now += 1;
    }
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual([
      "one",
      "two",
      "three",
    ]);
    expect(await roster.unread("s2")).toBe(3);
    const ids = inbox.ok ? inbox.messages.slice(0, 2).map((message) => message.id) : [];
    expect(await roster.ack("s2", [...ids, "nope"])).toEqual({
      ok: true,
      acked: ids,
      missing: ["nope"],
    });
    expect(await bodies("s2")).toEqual(["three"]);
    expect(await roster.unread("s2")).toBe(1);
  });

  it("a message found in both new/ and cur/ after a crash is shown once and cleaned", async () => {
    const receipt = await roster.send({ from: "alice", to: "bob", body: "hello" });
    const id = receipt.ok ? receipt.id : "";
    const text = await memory.fs.readFile(`${DIR}/mail/s2/new/${id}.json`);
    await roster.ack("s2", [id]);
    memory.put(`${DIR}/mail/s2/new/${id}.json`, text);
    expect(await bodies("s2")).toEqual([]);
    expect(memory.files(`${DIR}/mail/s2/new`)).toEqual([]);
  });

  it("a file that does not parse is moved to quarantine with a warning, never fatal", async () => {
    await roster.send({ from: "alice", to: "bob", body: "good" });
    await memory.fs.writeFile(`${DIR}/mail/s2/new/garbage.json`, "not json", 0o600);
    await memory.fs.writeFile(`${DIR}/mail/s2/new/x.y.json`, "{}", 0o600);
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual(["good"]);
    expect(inbox.ok && [...inbox.warnings].sort()).toEqual([
      "mail/s2/new/garbage.json is not a message; moved to quarantine/",
      "mail/s2/new/x.y.json is not a message; moved to quarantine/",
    ]);
    expect(memory.files(`${DIR}/quarantine`)).toHaveLength(2);
  });

  it("sets aside many strays a few at once, not one after another", async () => {
    // On NATS each is three round trips: a teammate's window of 1,000 junk messages was 3,000
    // round trips in a row on every inbox and hook. Each rename here takes a moment; counted:
    // the most set aside at the same time.
    for (let n = 0; n < 40; n += 1)
      await memory.fs.writeFile(`${DIR}/mail/s2/new/junk${n}.json`, "not json", 0o600);
    const rename = memory.fs.rename;
    let inFlight = 0;
    let most = 0;
    memory.fs.rename = async (from, to) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight -= 1;
      return rename(from, to);
    };
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.warnings).toHaveLength(40);
    expect(inbox.ok && inbox.warnings[0]).toBe(
      "mail/s2/new/junk0.json is not a message; moved to quarantine/",
    );
    expect(memory.files(`${DIR}/quarantine`)).toHaveLength(40);
    expect(most).toBeGreaterThan(1);
  });

  it("a received message is found by id, read or not, and only in the receiver's own mailbox", async () => {
    const first = await roster.send({ from: "alice", to: "bob", body: "one", hops: 2 });
    const id = first.ok ? first.id : "";
    expect(await roster.received("s2", id)).toMatchObject({ id, body: "one", hops: 2 });
    await roster.ack("s2", [id]);
    expect(await roster.received("s2", id)).toMatchObject({ id, hops: 2 });
    expect(await roster.received("s3", id)).toBeUndefined();
    expect(await roster.received("s2", "never-sent")).toBeUndefined();
    expect(await roster.received("../s2", id)).toBeUndefined();
    expect(await roster.received("s2", `../new/${id}`)).toBeUndefined();
    await memory.fs.writeFile(`${DIR}/mail/s2/cur/planted.json`, '{"hops": -5}', 0o600);
    expect(await roster.received("s2", "planted")).toBeUndefined();
  });

  it("ids are checked before they touch a path", async () => {
    expect(await roster.receive("../s2")).toMatchObject({ ok: false, reason: "bad-id" });
    expect(await roster.ack("../s2", ["x"])).toMatchObject({ ok: false, reason: "bad-id" });
    expect(await roster.ack("s2", ["../../labels/alice"])).toEqual({
      ok: true,
      acked: [],
      missing: ["../../labels/alice"],
    });
    expect(memory.files(`${DIR}/labels`)).toHaveLength(3);
  });
});
