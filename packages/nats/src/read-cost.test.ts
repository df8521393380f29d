// What one roster read costs as a team grows: the signatures it verifies grow with its members,
// not with their square. A label's claim is checked against every live record of another key;
// checked by opening (verifying) each record again per label, a read of 300 members took 6.4 s.
// Counted, not timed: every Ed25519 verification the store makes, through Node's `crypto.verify`,
// is counted here. Two people (alice, bob), each with a seed of their own, on one team on
// a real nats-server, each joining members with their own key.
import crypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";
import { nodeSleep, processFacts } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import { heartbeatMember as member, NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { openNatsStore } from "./_open-store.js";

// Every verification in this process, counted: Node's `crypto.verify` wrapped, and the named
// export the store imported made to follow it (a module mock would miss a module already loaded by
// another file, as the files of this package share their modules).
const counted = { verifies: 0 };
const verify = crypto.verify;
function countedVerify(...args: Parameters<typeof verify>) {
  counted.verifies += 1;
  return verify(...args);
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

beforeAll(async () => {
  if (NATS_SERVER_MISSING) return;
  crypto.verify = countedVerify as typeof verify;
  syncBuiltinESMExports();
  teams = await startTeams({ [TEAM]: ["alice", "bob", "carol"] });
  for (const name of ["alice", "bob"]) rosters[name] = await rosterOf(name);
}, 60_000);

afterAll(async () => {
  crypto.verify = verify;
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
});
