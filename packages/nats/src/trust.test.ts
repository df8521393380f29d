// What a member writes is provably its own, and what is written to a member is readable by that
// member alone: three people (alice, bob, eve), each with a seed of their own, on one team on a
// real nats-server, each through the store as muster opens it. Eve attacks with her own muster
// (her roster, writing as others) and with the bucket's raw keys (what her credentials allow).
import { readFileSync } from "node:fs";
import { nodeSleep, processFacts } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import { heartbeatMember as member, NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { envelope } from "./_envelope.js";
import { keysOf, seedIn } from "./_keys.js";
import { type Bucket, openBucket, putKey, readKey } from "./_kv.js";
import { openNatsStore } from "./_open-store.js";
import type { NatsStore } from "./_store.js";
import { teamResources } from "./_team-name.js";

const TEAM = "acme/trust";
let teams: TestTeams;
const closers: (() => Promise<void>)[] = [];
type Person = { store: NatsStore; roster: Roster; refused: string[] };
const people: Record<string, Person> = {};
let raw: Bucket;

async function person(name: string): Promise<Person> {
  const refused: string[] = [];
  const opened = await openNatsStore(
    teams.settings(TEAM, name),
    { name: TEAM, id: teams.id(TEAM) },
    { onRefused: (line) => refused.push(line) },
  );
  if (!opened.ok) throw new Error(opened.error);
  closers.push(opened.close);
  const rostered = await openRoster({
    store: opened.store,
    sleep: nodeSleep,
    clock: Date.now,
    processes: processFacts,
  });
  if (!rostered.ok) throw new Error(rostered.error);
  return { store: opened.store, roster: rostered.roster, refused };
}

beforeAll(async () => {
  if (NATS_SERVER_MISSING) return;
  teams = await startTeams({ [TEAM]: ["alice", "bob", "eve"] });
  for (const name of ["alice", "bob", "eve"]) people[name] = await person(name);
  const connected = await teams.connect(TEAM, "eve");
  if (!connected.ok) throw new Error(connected.error);
  closers.push(() => connected.connection.close());
  raw = await openBucket(connected.connection, teamResources(teams.id(TEAM)).bucket);
  const { alice, bob, eve } = people as Record<string, Person>;
  expect(await alice?.roster.join(member("a1", "alice"))).toMatchObject({ ok: true });
  expect(await bob?.roster.join(member("b1", "bob"))).toMatchObject({ ok: true });
  expect(await eve?.roster.join(member("e1", "eve"))).toMatchObject({ ok: true });
}, 60_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await teams?.stop();
});

const sent = async (from: string, to: string, body: string) => {
  const receipt = await people.alice!.roster.send({ from, to, body });
  if (!receipt.ok) throw new Error(receipt.error);
  return receipt.id;
};
const bodies = (inbox: Awaited<ReturnType<Roster["receive"]>>) =>
  inbox.ok ? inbox.messages.map((message) => message.body) : [`failed: ${inbox.error}`];

describe.skipIf(NATS_SERVER_MISSING)("a teammate with credentials of her own", () => {
  test("cannot read another's mail: it is sealed to its recipient", async () => {
    const id = await sent("a1", "bob", "the secret plan");
    const kept = await readKey(raw, `unread.b1.${id}`);
    expect(kept?.value).toBeDefined();
    expect(kept?.value).not.toContain("the secret plan");
    expect(bodies(await people.eve!.roster.receive("b1"))).not.toContain("the secret plan");
    expect(await people.eve!.roster.received("b1", id)).toBeUndefined();
    // Eve's muster neither reads it nor sets it aside: it is not hers to judge.
    expect(bodies(await people.bob!.roster.receive("b1"))).toContain("the secret plan");
  });

  test("cannot acknowledge another's mail, by muster or by its keys", async () => {
    const id = await sent("a1", "bob", "ack me yourself");
    expect(await people.eve!.roster.ack("b1", [id])).toMatchObject({ acked: [], missing: [id] });
    // By the keys: the mail copied to read/ and taken out of unread/, as an ack does.
    const unread = await readKey(raw, `unread.b1.${id}`);
    await putKey(raw, `read.b1.${id}`, unread?.value ?? "");
    await raw.kv.delete(`unread.b1.${id}`);
    // Bob still sees it as new, and his ack stands; the sender never heard "acknowledged" from eve.
    expect(bodies(await people.bob!.roster.receive("b1"))).toContain("ack me yourself");
    const before = await people.alice!.roster.receipt(id);
    expect(before.ok && before.recipients[0]?.phases.acknowledged).toBeUndefined();
    expect(await people.bob!.roster.ack("b1", [id])).toMatchObject({ acked: [id] });
    expect(bodies(await people.bob!.roster.receive("b1"))).not.toContain("ack me yourself");
  });

  test("cannot forge an acknowledged receipt: it is refused and reported", async () => {
    const id = await sent("a1", "bob", "unread still");
    const at = new Date().toISOString();
    // With her own key, as bob; and as a raw value.
    await people.eve!.store.receipts.mark(id, { member: "b1", phase: "acknowledged", at });
    const receipt = await people.alice!.roster.receipt(id);
    expect(receipt.ok && receipt.recipients[0]?.phases.acknowledged).toBeUndefined();
    expect(receipt.ok && receipt.warnings.join("\n")).toMatch(/refused/);
    expect(people.alice!.refused.join("\n")).toMatch(
      new RegExp(`refused receipt\\.${id}\\.b1\\.acknowledged .*not by b1's key`),
    );
    expect(bodies(await people.bob!.roster.receive("b1"))).toContain("unread still");
    // Nor folded: a fold holding an acknowledged mark without its member's signed value.
    await people.eve!.store.receipts.fold(id, [{ member: "b1", phase: "acknowledged", at }]);
    const folded = await people.alice!.roster.receipt(id);
    expect(folded.ok && folded.recipients[0]?.phases.acknowledged).toBeUndefined();
  });

  test("cannot write mail into another's mailbox as a third member", async () => {
    // Eve's muster sends as alice; then a raw message, unsigned, as alice.
    const forged = await people.eve!.roster.send({ from: "a1", to: "bob", body: "from alice?" });
    expect(forged.ok).toBe(true);
    const text = JSON.stringify({
      v: 1,
      id: "m-forged-1",
      from: { id: "a1", label: "alice" },
      to: "bob",
      body: "raw from alice?",
      urgent: false,
      hops: 0,
      sentAt: new Date().toISOString(),
    });
    await putKey(raw, "unread.b1.m-forged-1", text);
    const inbox = await people.bob!.roster.receive("b1");
    expect(bodies(inbox)).not.toContain("from alice?");
    expect(bodies(inbox)).not.toContain("raw from alice?");
    expect(inbox.ok && inbox.warnings.join("\n")).toMatch(/is refused: it is mail is signed by/);
    expect(inbox.ok && inbox.warnings.join("\n")).toMatch(/is refused: it is not signed/);
    expect(people.bob!.store.refused().join("\n")).toMatch(/refused unread\.b1\./);
  });

  test("cannot take a live member's label: a claim deleted and taken is refused", async () => {
    await raw.kv.delete("labels.bob");
    // Eve's muster writes the claim for her second member, then reads it back: refused.
    const taken = await people.eve!.roster.join(member("e2", "bob"));
    expect(taken).toMatchObject({ ok: false, reason: "label-held" });
    expect(people.eve!.refused.join("\n")).toMatch(
      /refused labels\.bob .*claims the label bob, held by b1 of another key/,
    );
    // Mail to bob never reaches eve's member. (The delete itself is not prevented: with the
    // claim gone, nobody holds bob until bob's member claims it again; README, threats.)
    const receipt = await people.alice!.roster.send({ from: "a1", to: "bob", body: "real bob" });
    expect(receipt.ok ? receipt.to.map((each) => each.id) : []).not.toContain("e2");
    const team = await people.alice!.roster.read();
    expect(team.ok && team.members.find((each) => each.label === "bob")?.id).toBe("b1");
  });

  test("a live member's claim deleted raw is said at its holder's next beat; muster's deletes are signed", async () => {
    const bob = people.bob!;
    // Bob holds his label again (the test before deleted his claim), then eve deletes it raw.
    expect(await bob.roster.join(member("b1", "bob"))).toMatchObject({ ok: true });
    await raw.kv.delete("labels.bob");
    expect(await bob.roster.heartbeat("b1")).toMatchObject({ ok: false, reason: "lost" });
    expect(bob.refused.join("\n")).toMatch(
      /labels\.bob in .* was deleted by a delete no member signed/,
    );
    // A label released by muster (alice's member leaves) is a signed delete: taken, nothing said.
    expect(await people.alice!.roster.join(member("a2", "carol"))).toMatchObject({ ok: true });
    expect(await people.alice!.roster.leave("a2")).toMatchObject({ ok: true, left: true });
    expect(await bob.roster.join(member("b2", "carol"))).toMatchObject({ ok: true });
    expect(bob.refused.join("\n")).not.toMatch(/labels\.carol/);
    expect(await bob.roster.join(member("b1", "bob"))).toMatchObject({ ok: true });
  });

  test("cannot forge a member's record: her muster refuses, and a record she signs is refused", async () => {
    await expect(
      people.eve!.store.put("sessions", "b1", `${JSON.stringify({ forged: true })}\n`),
    ).rejects.toThrow(/b1 is bound to another key/);
    expect(people.eve!.refused.join("\n")).toMatch(/refused keys\.b1 .*binds b1 to/);
    // Signed with her own key, written by the keys.
    const seed = seedIn(readFileSync(teams.settings(TEAM, "eve").credsFile, "utf8")) ?? "";
    const record = JSON.stringify({ ...member("b1", "bob"), forged: true });
    await putKey(raw, "sessions.b1", envelope(keysOf(seed), "sessions.b1", "s", record));
    const team = await people.alice!.roster.read();
    expect(team.ok && team.members.some((each) => "forged" in each)).toBe(false);
    expect(people.alice!.refused.join("\n")).toMatch(/refused sessions\.b1 .*not by b1's key/);
  });
});
