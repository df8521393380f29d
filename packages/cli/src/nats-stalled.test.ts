// A stalled NATS server (SIGSTOP: a frozen host, a half-open route) holds every socket open and
// answers nothing. Every command still ends with its error within its deadline, the built binary
// against a real nats-server, whatever the socket holds: the store's error, then the connection
// closed within a bound, then the process's exit.
// A fault held for seconds on a real server: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { LONG_TESTS, NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { clone, type NatsTeam, startNatsTeam } from "../test/nats-team.ts";
import { musterKit } from "../test/run.ts";

const { scratch, muster } = musterKit("muster-cli-nats-stalled-");
const here = clone(scratch, "here");
let team: NatsTeam;
/** The connect's timeout (5 s) plus the close's bound and the exit's, with room for a loaded machine. */
const DEADLINE_MS = 12_000;

beforeAll(async () => {
  team = await startNatsTeam(muster, scratch, here, ["alice"]);
  const joined = await muster(["join", "alice", "--id", "a1"], {
    cwd: here,
    env: team.env("alice"),
  });
  expect(joined.stderr).toBe("");
}, 60_000);

afterAll(async () => {
  if (team) process.kill(team.server.pid, "SIGCONT");
  await team?.server.stop();
});

describe.skipIf(NATS_SERVER_MISSING || !LONG_TESTS)("a stalled server", () => {
  test("roster, send, board and status --line each end with their error within the deadline", async () => {
    process.kill(team.server.pid, "SIGSTOP");
    try {
      const commands = [
        ["roster"],
        ["send", "alice", "hello", "--id", "a1"],
        ["board"],
        ["status", "--line"],
      ];
      const runs = await Promise.all(
        commands.map(async (args) => {
          const started = performance.now();
          const run = await muster(args, {
            cwd: here,
            env: team.env("alice"),
            timeoutMs: 40_000,
          });
          return { args, run, ms: performance.now() - started };
        }),
      );
      for (const { args, run, ms } of runs) {
        const what = `muster ${args.join(" ")}: ${JSON.stringify(run)} after ${Math.round(ms)} ms`;
        expect(run.status, what).not.toBeNull(); // null: killed at 40 s, it had not ended
        expect(ms, what).toBeLessThan(DEADLINE_MS);
        if (args[0] !== "status") {
          expect(run.status, what).toBe(1);
          expect(run.stderr, what).toMatch(/NATS server .* did not answer in time|cannot reach/);
        }
      }
    } finally {
      process.kill(team.server.pid, "SIGCONT");
    }
    // Resumed, the team is as it was.
    const after = await muster(["roster", "--json"], { cwd: here, env: team.env("alice") });
    expect(JSON.parse(after.stdout)).toMatchObject({ ok: true });
  }, 90_000);
});
