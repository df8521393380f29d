// What one teammate's writes cannot do to the others: slow every read with a flood of keys, or
// send mail that is over the server's limit once sealed. Three people (alice, bob, eve), each with
// a seed of their own, on one team on a real nats-server; eve floods with her own key, as her
// credentials allow: 6,000 records, 6,000 messages in alice's mailbox, 6,000 board cards.
import { readFileSync } from "node:fs";
import { nodeSleep, processFacts } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import { LONG_TESTS, heartbeatMember as member, NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { envelope } from "./_envelope.js";
import { keysOf, seedIn } from "./_keys.js";
import { type Bucket, MAX_VALUE_BYTES, openBucket, putKey } from "./_kv.js";
import { listKeys } from "./_list.js";
import { openNatsStore } from "./_open-store.js";
import type { NatsStore } from "./_store.js";
import { teamResources } from "./_team-name.js";

const TEAM = "acme/flood";
// Past every bound (64 records, 1,000 unread messages, 500 cards a key) in `pnpm test`; the
// 6,000 measured unbounded (23 s for a roster read) in `pnpm test:long`.
const FLOOD = LONG_TESTS ? 6_000 : 1_500;
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

/** The median time of `runs` calls of `read`, in ms. */
async function timed(read: () => Promise<unknown>, runs = 5): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const start = performance.now();
    await read();
    times.push(performance.now() - start);
  }
  return times.sort((one, other) => one - other)[Math.floor(runs / 2)]!;
}

const reads = () => ({
  roster: () => people.alice!.roster.read(),
  inbox: () => people.alice!.roster.receive("a1"),
  board: () => people.alice!.roster.board({ ownerVerdict: () => ({ keep: true }) }).read(),
});

/** `count` keys written by `write`, 100 at once. */
async function flood(count: number, write: (n: number) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < count; start += 100)
    await Promise.all(
      Array.from({ length: Math.min(100, count - start) }, (_, n) => write(start + n)),
    );
}

const before: Record<string, number> = {};

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
  expect(await bob?.roster.send({ from: "b1", to: "alice", body: "the real one" })).toMatchObject({
    ok: true,
  });
  for (const [name, read] of Object.entries(reads())) before[name] = await timed(read);
}, 120_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await teams?.stop();
});

describe.skipIf(NATS_SERVER_MISSING)("a teammate flooding the bucket with her own key", () => {
  test("slows no read much: a key's writes past its bound are skipped, and said once", async () => {
    const seed = seedIn(readFileSync(teams.settings(TEAM, "eve").credsFile, "utf8")) ?? "";
    const keys = keysOf(seed);
    const eve = people.eve!.store;
    const started = performance.now();
    await flood(FLOOD, (n) => {
      const key = `sessions.j${n}`;
      const record = JSON.stringify({ ...member(`j${n}`, `junk${n}`), startedAt: "x" });
      return putKey(raw, key, envelope(keys, key, "s", record));
    });
    await flood(FLOOD, async (n) => {
      const text = JSON.stringify({
        v: 1,
        id: `m-j${n}`,
        from: { id: "e1", label: "eve" },
        to: "alice",
        body: `junk ${n}`,
        urgent: false,
        hops: 0,
        sentAt: new Date().toISOString(),
      });
      await eve.mail.deliver("a1", `m-j${n}`, `${text}\n`);
    });
    await flood(FLOOD, (n) => {
      const key = `board.c${n + 100}`;
      return putKey(raw, key, envelope(keys, key, "s", JSON.stringify({ junk: n })));
    });
    const wrote = performance.now() - started;
    const after: Record<string, number> = {};
    for (const [name, read] of Object.entries(reads())) after[name] = await timed(read, 3);
    // The yardstick, as loaded as the reads: listing the flooded records, nothing more.
    const listing = await timed(() => listKeys(raw, "sessions."), 3);
    console.log(
      `flood of ${FLOOD} keys × 3 spaces written in ${Math.round(wrote)} ms; median read (ms) without → with:`,
      Object.keys(after)
        .map((name) => `${name} ${before[name]?.toFixed(0)} → ${after[name]?.toFixed(0)}`)
        .join(", "),
      `; listing the flooded space alone ${listing.toFixed(0)} ms`,
    );
    // The reads still answer what is there: alice sees bob's mail, bob is on the roster.
    const inbox = await people.alice!.roster.receive("a1");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toContain("the real one");
    const team = await people.alice!.roster.read();
    expect(team.ok && team.members.map((each) => each.label)).toEqual(
      expect.arrayContaining(["alice", "bob", "eve"]),
    );
    expect(team.ok && team.members.length).toBeLessThan(300);
    // The flood is said, once a space, naming the key that wrote it.
    const said = people.alice!.refused.filter((line) => /over the bound/.test(line));
    expect(said.length).toBeGreaterThan(0);
    expect(said.length).toBeLessThan(10);
    expect(said.join("\n")).toMatch(new RegExp(`${keys.sign.slice(0, 5)}`));
    // Unbounded, the reads took 23 s (roster), 6 s (inbox) and 32 s (board) here, ~50 listings'
    // worth; bounded, the flood costs its listing and what one key may have, a few listings'.
    for (const name of Object.keys(after))
      expect(after[name], `${name} with the flood`).toBeLessThan(Math.max(3_000, 10 * listing));
  }, 300_000);
});

describe.skipIf(NATS_SERVER_MISSING)("mail near the size limit, once sealed", () => {
  test("is refused at send with the real limit for its body; one just under it goes and is read", async () => {
    await people.alice!.roster.heartbeat("a1");
    await people.bob!.roster.heartbeat("b1");
    // 64 KiB of control characters: 6 bytes each as JSON, ×4/3 sealed (base64): over 512 KiB.
    const over = "\u0001".repeat(64 * 1024);
    const refused = await people.alice!.roster.send({ from: "a1", to: "bob", body: over });
    const line = refused.ok ? "sent" : refused.error;
    expect(line).toMatch(/too large for NATS once sealed/);
    const limit = Number(
      /a body of at most ([\d,]+) bytes as JSON/.exec(line)?.[1]?.replaceAll(",", ""),
    );
    expect(limit).toBeGreaterThan(300_000);
    expect(limit).toBeLessThan(MAX_VALUE_BYTES);
    // At the boundary: one character over the limit is refused, one under goes, and is read.
    const fits = Math.floor((limit - 2) / 6);
    const tooMany = await people.alice!.roster.send({
      from: "a1",
      to: "bob",
      body: "\u0001".repeat(fits + 1),
    });
    expect(tooMany.ok ? "sent" : tooMany.error).toMatch(/too large for NATS once sealed/);
    const body = "\u0001".repeat(fits);
    const sent = await people.alice!.roster.send({ from: "a1", to: "bob", body });
    expect(sent.ok ? "sent" : sent.error).toBe("sent");
    const inbox = await people.bob!.roster.receive("b1");
    expect(inbox.ok && inbox.messages.some((each) => each.body === body)).toBe(true);
    // And read: the mark that holds it fits too.
    const id = sent.ok ? sent.id : "";
    const acked = await people.bob!.roster.ack("b1", [id]);
    expect(acked, JSON.stringify(acked).slice(0, 400)).toMatchObject({ acked: [id] });
  }, 60_000);
});
