// A value signed by its member stays its member's wherever a teammate puts it back: replayed at its
// own key, a departed member's record is a valid signature written now by the server's clock. Seen
// (an attack on issue 36's label rule): eve put back the record bob's member wrote when it held the
// label `lead`, long after it left; every claim of `lead` by another key was refused as "held by b3
// of another key, whose record is live", for as long as eve kept putting it back. A record is live
// for that rule by its own heartbeat as well as by when the server stored it.
import { nodeSleep, processFacts } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import { heartbeatMember as member, NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { type Bucket, openBucket, putKey, readKey } from "./_kv.js";
import { openNatsStore } from "./_open-store.js";
import { teamResources } from "./_team-name.js";

const TEAM = "acme/replay";
/** A short life for the members, so a record's heartbeat is past it within the test. */
const POLICY = { heartbeatIntervalMs: 300, staleAfterMs: 1_000, ttlMs: 2_000 };
let teams: TestTeams;
const closers: (() => Promise<void>)[] = [];
let raw: Bucket;

/** A person's muster, opened afresh (a store remembers a listing of the records for a while). */
async function person(name: string): Promise<{ roster: Roster; refused: string[] }> {
  const refused: string[] = [];
  const team = { name: TEAM, id: teams.id(TEAM) };
  const opened = await openNatsStore(teams.settings(TEAM, name), team, {
    onRefused: (line) => refused.push(line),
    liveForMs: POLICY.ttlMs,
  });
  if (!opened.ok) throw new Error(opened.error);
  closers.push(opened.close);
  const store = opened.store;
  const rostered = await openRoster({
    store,
    sleep: nodeSleep,
    clock: Date.now,
    processes: processFacts,
    policy: POLICY,
  });
  if (!rostered.ok) throw new Error(rostered.error);
  return { roster: rostered.roster, refused };
}

beforeAll(async () => {
  if (NATS_SERVER_MISSING) return;
  teams = await startTeams({ [TEAM]: ["alice", "bob", "eve"] });
  const connected = await teams.connect(TEAM, "eve");
  if (!connected.ok) throw new Error(connected.error);
  closers.push(() => connected.connection.close());
  raw = await openBucket(connected.connection, teamResources(teams.id(TEAM)).bucket);
}, 60_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await teams?.stop();
});

describe.skipIf(NATS_SERVER_MISSING)("a teammate replaying a departed member's record", () => {
  test("does not keep its label from another key", async () => {
    const [alice, bob] = [await person("alice"), await person("bob")];
    expect(await bob.roster.join(member("b3", "lead"))).toMatchObject({ ok: true });
    const record = await readKey(raw, "sessions.b3");
    expect(await bob.roster.leave("b3")).toMatchObject({ ok: true, left: true });
    // Past the record's heartbeat's life, eve puts the record back, byte for byte.
    await new Promise((resolve) => setTimeout(resolve, POLICY.ttlMs + 500));
    await putKey(raw, "sessions.b3", record?.value ?? "");
    expect(await alice.roster.join(member("a4", "lead"))).toMatchObject({ ok: true });
    expect(alice.refused.join("\n")).not.toMatch(/claims the label lead/);
    const team = await alice.roster.read();
    expect(team.ok && team.members.find((each) => each.label === "lead")?.id).toBe("a4");
  }, 30_000);

  test("a live member's label stays its own (the rule still holds)", async () => {
    const [alice, bob] = [await person("alice"), await person("bob")];
    expect(await bob.roster.join(member("b5", "keeper"))).toMatchObject({ ok: true });
    await raw.kv.delete("labels.keeper");
    expect(await alice.roster.join(member("a5", "keeper"))).toMatchObject({
      ok: false,
      reason: "label-held",
    });
    expect(alice.refused.join("\n")).toMatch(/claims the label keeper, held by b5 of another key/);
  }, 30_000);

  test("does not deliver mail again: put back after it was read, it is refused and said", async () => {
    const [alice, bob] = [await person("alice"), await person("bob")];
    expect(await alice.roster.join(member("a6", "sender"))).toMatchObject({ ok: true });
    expect(await bob.roster.join(member("b6", "reader"))).toMatchObject({ ok: true });
    const sent = await alice.roster.send({ from: "a6", to: "reader", body: "deploy now" });
    if (!sent.ok) throw new Error(sent.error);
    const kept = await readKey(raw, `unread.b6.${sent.id}`);
    expect(await bob.roster.ack("b6", [sent.id])).toMatchObject({ acked: [sent.id] });
    // Eve deletes what says it was read (its read copy, the receipts) and puts the mail back.
    for (const key of [
      `read.b6.${sent.id}`,
      `receipt.${sent.id}.b6.written`,
      `receipt.${sent.id}.b6.acknowledged`,
    ])
      await raw.kv.delete(key);
    await putKey(raw, `unread.b6.${sent.id}`, kept?.value ?? "");
    const again = await person("bob");
    const inbox = await again.roster.receive("b6");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual([]);
    expect(again.refused.join("\n")).toMatch(new RegExp(`unread\\.b6\\.${sent.id} .*read already`));
  }, 30_000);
});
