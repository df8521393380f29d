// A NATS server that stalls part way through a command (a route or a host that stops answering
// once the command is connected and under way: a TCP relay that gives each connection its first
// bytes from the server, then nothing) fails the command's first request at its timeout; every
// later request fails at once, not after its own timeout, and the command ends with its error
// within the same deadline as a server stalled before it connects. The built binary against a
// real nats-server. A fault held for seconds: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { LONG_TESTS, NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { beatersIn, clone, type NatsTeam, startNatsTeam } from "../test/nats-team.ts";
import { musterKit } from "../test/run.ts";
import { type StallRelay, startStallRelay } from "../test/stall-relay.ts";

const { scratch, muster, close } = musterKit("muster-cli-nats-stalled-midway-");
const here = clone(scratch, "here");
let team: NatsTeam;
let relay: StallRelay;
/** As for a server stalled before the connect (nats-stalled.test.ts): 5 s, then the close and exit. */
const DEADLINE_MS = 12_000;

const as = (member: string) => ({ ...team.env(member), MUSTER_NATS: relay.url });

beforeAll(async () => {
  team = await startNatsTeam(muster, scratch, here, ["alice", "bob", "carol"]);
  relay = await startStallRelay(team.server.port);
  for (const [member, id] of [
    ["alice", "a1"],
    ["bob", "b1"],
  ] as const) {
    const joined = await muster(["join", member, "--id", id], { cwd: here, env: as(member) });
    expect(joined.stderr).toBe("");
  }
}, 60_000);

afterAll(async () => {
  for (const pid of beatersIn(here)) process.kill(pid, "SIGKILL");
  await relay?.close();
  await team?.server.stop();
  close();
});

const COMMANDS: readonly (readonly [string, string[]])[] = [
  ["carol", ["join", "carol", "--id", "c1"]],
  ["alice", ["board", "add", "fix", "the", "login", "--id", "a1"]],
  ["alice", ["heartbeat", "--id", "a1"]],
  ["alice", ["send", "bob", "hello", "--id", "a1"]],
  ["alice", ["roster"]],
  ["bob", ["leave", "--id", "b1"]],
];

describe.skipIf(NATS_SERVER_MISSING || !LONG_TESTS)("a server stalled part way through", () => {
  // Each command gets this many of the server's bytes (past its connect: ~1 KB), then nothing;
  // every one of them takes 8-22 KB whole.
  test.each([2_500, 6_000])(
    "join, board add, heartbeat, send, roster and leave each end with their error within the deadline (frozen after %i bytes)",
    async (bytes) => {
      relay.freezeAfter(bytes);
      const froze = relay.frozen();
      try {
        const runs = await Promise.all(
          COMMANDS.map(async ([member, args]) => ({
            args,
            run: await muster(args, { cwd: here, env: as(member), timeoutMs: 40_000 }),
          })),
        );
        for (const { args, run } of runs) {
          const what = `muster ${args.join(" ")}: ${JSON.stringify(run)}`;
          expect.soft(run.status, what).toBe(1); // null: killed at 40 s, it had not ended
          expect.soft(run.stderr, what).toMatch(/NATS server .* did not answer in time/);
          expect.soft(run.ms, what).toBeLessThan(DEADLINE_MS);
        }
        expect(relay.frozen() - froze).toBeGreaterThanOrEqual(COMMANDS.length);
      } finally {
        relay.resume();
      }
      // Resumed, the team is as it was: alice is on it, and answers.
      const beat = await muster(["heartbeat", "--id", "a1"], { cwd: here, env: as("alice") });
      expect(beat.stderr).toBe("");
      const after = await muster(["roster", "--json"], { cwd: here, env: as("alice") });
      expect(JSON.parse(after.stdout)).toMatchObject({ ok: true });
      expect(after.stdout).toContain('"alice"');
    },
    90_000,
  );
});
