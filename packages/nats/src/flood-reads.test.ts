// What the everyday commands read while one teammate floods the bucket: `status --line`, `send`
// and a Claude Code hook. Counted, not timed (the connection's own statistics: messages and bytes
// received): eve writes junk, with her own key, to every space her credentials let her write that
// these commands read, and each command's reads are counted without and with it. Each flooded
// space is received once a command at most; that a command receives no more with the flood than
// without is still open (a listing walks its whole space), and said so below.
import { readFileSync } from "node:fs";
import { nodeSleep, processFacts } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import { LONG_TESTS, heartbeatMember as member, NATS_SERVER_MISSING } from "@muster/test-support";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { envelope } from "./_envelope.js";
import { keysOf, seedIn } from "./_keys.js";
import { type Bucket, openBucket, putKey } from "./_kv.js";
import { natsStore } from "./_store.js";
import { teamResources } from "./_team-name.js";
import { trust } from "./_trust.js";

const TEAM = "acme/flood-reads";
/** The flood: 60,000 keys as the issue measured it under `pnpm test:long`, fewer otherwise. */
const FLOOD = LONG_TESTS ? 60_000 : 3_000;
let teams: TestTeams;
const closers: (() => Promise<void>)[] = [];
type Person = { roster: Roster; connection: NatsConnection };
const people: Record<string, Person> = {};

/** A person's roster on a connection of its own, whose statistics count what it receives. */
async function person(name: string): Promise<Person> {
  const connected = await teams.connect(TEAM, name);
  if (!connected.ok) throw new Error(connected.error);
  const { connection, seed } = connected;
  closers.push(() => connection.close());
  const bucket = await openBucket(connection, teamResources(teams.id(TEAM)).bucket);
  const store = natsStore(bucket, TEAM, [], trust(bucket, keysOf(seed)));
  const opened = await openRoster({
    store,
    sleep: nodeSleep,
    clock: Date.now,
    processes: processFacts,
  });
  if (!opened.ok) throw new Error(opened.error);
  return { roster: opened.roster, connection };
}

/**
 * The reads each command makes, through alice's roster, as the CLI and the hooks make them: the
 * status line reads the person's mailboxes only (a1 is alice at her shell) and the land queue's
 * waiting only while a land is under way (none is).
 */
const commands: Record<string, (roster: Roster) => Promise<unknown>> = {
  "status --line": async (roster) => {
    const read = await roster.read();
    for (const each of read.ok ? read.members : [])
      if (each.agent === "bash") await roster.waiting(each.id);
    await roster.readClaim("lands", "landing");
    await roster.readClaim("lands", "last");
  },
  send: (roster) => roster.send({ from: "a1", to: "bob", body: "hello" }),
  // A Claude Code hook (UserPromptSubmit, Stop): the team, then the member's own mail.
  hook: async (roster) => {
    await roster.read();
    await roster.receive("a1");
  },
};

type Cost = { messages: number; bytes: number };

/**
 * What the client received (messages, bytes) for one run of each command, each on a roster of its
 * own (as each CLI command and hook is a process of its own): counted from the open on, on its
 * second run (the first sets aside what the flood put in alice's mailbox, once).
 */
async function costs(): Promise<Record<string, Cost>> {
  const measured: Record<string, Cost> = {};
  for (const [name, run] of Object.entries(commands)) {
    await run((await person("alice")).roster);
    const { roster, connection } = await person("alice");
    const before = connection.stats();
    await run(roster);
    const after = connection.stats();
    measured[name] = {
      messages: after.inMsgs - before.inMsgs,
      bytes: after.inBytes - before.inBytes,
    };
  }
  return measured;
}

/** `count` writes of `write`, 200 at once. */
async function flood(count: number, write: (n: number) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < count; start += 200)
    await Promise.all(
      Array.from({ length: Math.min(200, count - start) }, (_, n) => write(start + n)),
    );
}

let without: Record<string, Cost> = {};

beforeAll(async () => {
  if (NATS_SERVER_MISSING) return;
  teams = await startTeams({ [TEAM]: ["alice", "bob", "eve"] });
  for (const name of ["alice", "bob", "eve"]) people[name] = await person(name);
  expect(
    await people.alice!.roster.join({ ...member("a1", "alice"), agent: "bash" }),
  ).toMatchObject({ ok: true });
  expect(await people.bob!.roster.join(member("b1", "bob"))).toMatchObject({ ok: true });
  expect(await people.eve!.roster.join(member("e1", "eve"))).toMatchObject({ ok: true });
  without = await costs();
}, 120_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await teams?.stop();
});

/** Eve's junk, signed with her own key, `FLOOD` keys spread over the spaces the commands read. */
async function floodAll(raw: Bucket): Promise<void> {
  const seed = seedIn(readFileSync(teams.settings(TEAM, "eve").credsFile, "utf8")) ?? "";
  const keys = keysOf(seed);
  const spaces = [
    (n: number) => [`sessions.j${n}`, JSON.stringify(member(`j${n}`, `junk${n}`))],
    (n: number) => [`labels.junk${n}`, JSON.stringify({ v: 1, key: `junk${n}`, holder: "e1" })],
    (n: number) => [`unread.a1.m-j${n}`, JSON.stringify({ v: 1, id: `m-j${n}` })],
    (n: number) => [`unread.b1.m-j${n}`, JSON.stringify({ v: 1, id: `m-j${n}` })],
    (n: number) => [`lands.wait-j${n}`, JSON.stringify({ v: 1, key: `wait-j${n}`, holder: "e1" })],
    (n: number) => [`receipt.m-j${n}.e1.delivered`, JSON.stringify({ v: 1 })],
  ];
  await flood(FLOOD, (n) => {
    const [key, text] = spaces[n % spaces.length]!(n) as [string, string];
    return putKey(raw, key, envelope(keys, key, "s", text));
  });
}

/** The flooded spaces each command must still list whole: the team's records and labels, and its own mail. */
const LISTED: Record<string, number> = { "status --line": 3, send: 1, hook: 3 };
let withFlood: Record<string, Cost> = {};

describe.skipIf(NATS_SERVER_MISSING)("eve's flood of keys", () => {
  test("is received at most once a space by status --line, send and a hook", async () => {
    const raw = await openBucket(people.eve!.connection, teamResources(teams.id(TEAM)).bucket);
    await floodAll(raw);
    withFlood = await costs();
    console.log(
      `a flood of ${FLOOD} keys; received without → with (messages, bytes):`,
      Object.keys(withFlood)
        .map(
          (name) =>
            `${name} ${without[name]?.messages}/${without[name]?.bytes} → ${withFlood[name]?.messages}/${withFlood[name]?.bytes}`,
        )
        .join(", "),
    );
    // Each flooded space a command lists costs its keys once: the record checks of a roster
    // read's labels share its listing of the records (listed again per label once the listing
    // took over a second: 5 listings of the records in one status line), the status line reads
    // no other member's mailbox and the land queue not at all when nobody lands.
    const perSpace = FLOOD / 6;
    // And the hook's inbox sets aside, three round trips each, the junk mail in the window of
    // 1,000 one key may have there (`_bound.ts`) that the first run did not set aside already.
    const setAside = 3 * Math.min(1_000, Math.max(0, perSpace - 1_000));
    for (const [name, cost] of Object.entries(withFlood))
      expect(cost.messages, `${name}: messages received`).toBeLessThan(
        (without[name]?.messages ?? 0) +
          (LISTED[name] ?? 0) * perSpace * 1.1 +
          (name === "hook" ? setAside : 0) +
          100,
      );
  }, 600_000);

  // Open (issue 36): a listing walks its whole space, so what a command receives still grows
  // with the flood. It stops when each writer's keys are apart (a subject token its credentials
  // pin) and a listing reads each writer's bounded share; then this passes, and `fails` goes.
  test.fails("leaves what they receive as it was, whatever the flood's size", () => {
    for (const [name, cost] of Object.entries(withFlood))
      expect(cost.messages, `${name}: messages received`).toBeLessThan(
        (without[name]?.messages ?? 0) + 200,
      );
  });
});
