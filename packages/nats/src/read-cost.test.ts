// What one roster read costs as a team grows: the signatures it verifies grow with its members,
// not with their square. A label's claim is checked against every live record of another key;
// checked by opening (verifying) each record again per label, a read of 300 members took 6.4 s.
// Counted, not timed: every Ed25519 verification the store makes, through Node's `crypto.verify`,
// is counted here. Two people (alice, bob), each with a seed of their own, on one team on
// a real nats-server, each joining members with their own key.
import crypto from "node:crypto";
import { readFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { nodeSleep, processFacts } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import { heartbeatMember as member, NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { envelope } from "./_envelope.js";
import { keysOf, seedIn } from "./_keys.js";
import { openBucket, putKey } from "./_kv.js";
import { openNatsStore } from "./_open-store.js";
import { natsStore } from "./_store.js";
import { teamResources } from "./_team-name.js";
import { trust } from "./_trust.js";

// Every verification in this process, counted: Node's `crypto.verify` wrapped, and the named
// export the store imported made to follow it (a module mock would miss a module already loaded by
// another file, as the files of this package share their modules).
const counted = { verifies: 0, signs: 0 };
const verify = crypto.verify;
function countedVerify(...args: Parameters<typeof verify>) {
  counted.verifies += 1;
  return verify(...args);
}
const sign = crypto.sign;
function countedSign(...args: Parameters<typeof sign>) {
  counted.signs += 1;
  return sign(...args);
}
const TEAM = "acme/read-cost";
let teams: TestTeams;
const closers: (() => Promise<void>)[] = [];
const rosters: Record<string, Roster> = {};

async function rosterOf(name: string): Promise<Roster> {
  const opened = await openNatsStore(teams.settings(TEAM, name), {
    name: TEAM,
    id: teams.id(TEAM),
  });
  if (!opened.ok) throw new Error(opened.error);
  closers.push(opened.close);
  const rostered = await openRoster({
    store: opened.store,
    sleep: nodeSleep,
    clock: Date.now,
    processes: processFacts,
  });
  if (!rostered.ok) throw new Error(rostered.error);
  return rostered.roster;
}

/** `each` more members for each person, joined with that person's own key. */
async function join(from: number, each: number): Promise<void> {
  for (const [name, roster] of Object.entries(rosters))
    for (let index = from; index < from + each; index += 1)
      expect(await roster.join(member(`${name}${index}`, `${name}-${index}`))).toMatchObject({
        ok: true,
      });
}

/**
 * The verifications and JSON parses one fresh reader's roster read makes, and the members it
 * read (JSON.parse wrapped for the read alone: each record's text parsed, however often).
 */
async function verificationsOfOneRead() {
  const reader = await rosterOf("carol");
  counted.verifies = 0;
  let parses = 0;
  const parse = JSON.parse;
  JSON.parse = (...args: Parameters<typeof parse>) => {
    parses += 1;
    return parse(...args);
  };
  const read = await reader.read().finally(() => {
    JSON.parse = parse;
  });
  const verifies = counted.verifies;
  return { verifies, parses, members: read.ok ? read.members.length : -1 };
}

/** A connection of `name`'s own, closed after the tests. */
async function connected(name: string) {
  const made = await teams.connect(TEAM, name);
  if (!made.ok) throw new Error(made.error);
  const connection = made.connection;
  closers.push(() => connection.close());
  return made;
}

/** What one fresh reader's roster read sends and receives (requests, replies), on its own connection. */
async function costOfOneRead() {
  const { connection, seed } = await connected("carol");
  const bucket = await openBucket(connection, teamResources(teams.id(TEAM)).bucket);
  const store = natsStore(bucket, TEAM, [], trust(bucket, keysOf(seed)));
  const opened = await openRoster({
    store,
    sleep: nodeSleep,
    clock: Date.now,
    processes: processFacts,
  });
  if (!opened.ok) throw new Error(opened.error);
  const before = connection.stats();
  const read = await opened.roster.read();
  const after = connection.stats();
  return {
    requests: after.outMsgs - before.outMsgs,
    replies: after.inMsgs - before.inMsgs,
    ok: read.ok,
  };
}

beforeAll(async () => {
  if (NATS_SERVER_MISSING) return;
  crypto.verify = countedVerify as typeof verify;
  crypto.sign = countedSign as typeof sign;
  syncBuiltinESMExports();
  teams = await startTeams({ [TEAM]: ["alice", "bob", "carol"] });
  for (const name of ["alice", "bob"]) rosters[name] = await rosterOf(name);
}, 60_000);

afterAll(async () => {
  crypto.verify = verify;
  crypto.sign = sign;
  syncBuiltinESMExports();
  await Promise.all(closers.map((close) => close()));
  await teams?.stop();
});

describe.skipIf(NATS_SERVER_MISSING)("one roster read", () => {
  test("verifies a number of signatures linear in its members, not their square", async () => {
    // Below the bound of 64 records a key: every record is read, and checked.
    await join(0, 20);
    const small = await verificationsOfOneRead();
    await join(20, 20);
    const large = await verificationsOfOneRead();
    expect(small.members).toBe(40);
    expect(large.members).toBe(80);
    // Counted at all: every record is verified at least once.
    expect(small.verifies).toBeGreaterThanOrEqual(small.members);
    // Each member's record, its label's claim and its key's binding: a few verifications each.
    // Per label claim re-verifying every record, 80 members were over 6,400 (≥ N²).
    for (const { verifies, members } of [small, large])
      expect(verifies, `${members} members`).toBeLessThanOrEqual(8 * members);
    expect(large.verifies / small.verifies).toBeLessThan(3);
    // Nor parses: a label's check went through every record of another key, parsing each again
    // (1,000 members: a million parses, a read of seconds and a stores bench that never ended).
    for (const { parses, members } of [small, large])
      expect(parses, `${members} members`).toBeLessThanOrEqual(12 * members);
    expect(large.parses / small.parses).toBeLessThan(3);
    // Each value verified once a read: a record, a label's claim, a binding (40 members: 120).
    // The records were verified twice, by the read and by its label checks' share of the listing,
    // and a binding twice when the records and labels asked at once (40 members: 198).
    for (const { verifies, members } of [small, large])
      expect(verifies, `${members} members`).toBeLessThanOrEqual(3 * members + 4);
  }, 60_000);

  test("asks the server a number of times that does not grow with its members", async () => {
    // A fresh process (every command is one) knows no member's binding: read one by one, a read
    // of 1,000 members was 1,000 round trips after its listings. Counted: the requests a fresh
    // reader's connection sends for one roster read (its listings, each a few requests).
    // Each person's members stay under the bound of 64 records (and bindings) one key may have.
    const small = await costOfOneRead();
    await join(40, 20);
    const large = await costOfOneRead();
    expect(small.ok && large.ok).toBe(true);
    // 80 → 120 members: the listings of the records, labels and bindings, a few requests each
    // (read one by one, the bindings were 40 requests more).
    expect(large.requests - small.requests, `${small.requests} → ${large.requests}`).toBeLessThan(
      10,
    );
  }, 120_000);

  test("lists no teammate's flood of junk bindings", async () => {
    // Bob binds 2,100 junk members with his own key: listed, every read would receive them all.
    const before = await costOfOneRead();
    const raw = await openBucket(
      (await connected("bob")).connection,
      teamResources(teams.id(TEAM)).bucket,
    );
    const keys = keysOf(seedIn(readFileSync(teams.settings(TEAM, "bob").credsFile, "utf8")) ?? "");
    for (let start = 0; start < 2_100; start += 300)
      await Promise.all(
        Array.from({ length: 300 }, (_, n) => {
          const key = `keys.junk${start + n}`;
          const text = JSON.stringify({ v: 1, member: `junk${start + n}`, sign: keys.sign });
          return putKey(raw, key, envelope(keys, key, "s", text));
        }),
      );
    const after = await costOfOneRead();
    expect(after.ok).toBe(true);
    // Past 2,000 bindings each is read by key again: 120 members, one reply each.
    expect(after.replies - before.replies, `${before.replies} → ${after.replies}`).toBeLessThan(
      300,
    );
  }, 120_000);

  test("reads the bindings a listing lacks at once, not one after another", async () => {
    // Records of members bound to nobody (a teammate's junk, or members joined since): each
    // binding is read by key, and 64 junk records a key were 64 round trips in a row.
    // Carol writes them (her key has no records yet: all 30 under the bound of 64) and reads them.
    const { connection, seed } = await connected("carol");
    const bucket = await openBucket(connection, teamResources(teams.id(TEAM)).bucket);
    const keys = keysOf(seed);
    for (let n = 0; n < 30; n += 1) {
      const key = `sessions.ghost${n}`;
      await putKey(bucket, key, envelope(keys, key, "s", JSON.stringify({ id: `ghost${n}` })));
    }
    const get = bucket.kv.get.bind(bucket.kv);
    let inFlight = 0;
    let most = 0;
    bucket.kv.get = async (...args: Parameters<typeof get>) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      try {
        return await get(...args);
      } finally {
        inFlight -= 1;
      }
    };
    const listed = await natsStore(bucket, TEAM, [], trust(bucket, keysOf(seed))).list("sessions");
    expect(listed.entries.filter((entry) => entry.key.startsWith("ghost"))).toHaveLength(30);
    expect(most).toBeGreaterThan(1);
  }, 60_000);

  test("connects signing the server's nonce with Node's crypto, not a pure-JS signature", async () => {
    // Every command connects: the NATS client's own nkey signing (tweetnacl, in JavaScript) made
    // the key pair from the seed twice and signed once, ~250 ms of a loaded machine's CPU a start.
    counted.signs = 0;
    await connected("carol");
    expect(counted.signs).toBe(1);
  });
});
