// Two hosts for real, on one NATS team: each member a shell in a pid and UTS namespace of its own
// (`unshare`, another place: no pid of one means anything on the other), each clone at its own
// path with its own HOME. A card claimed on one is seen claimed on the other, a lease taken on
// one refuses the other's commit (the guard the pre-commit hook runs), mail sent on one reaches a
// follower on the other, and each host's beater keeps its member live as the other judges it (by
// heartbeat only). Skipped, saying why, where the kernel forbids the namespaces. A whole-host
// scene: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { eventually, LONG_TESTS, NATS_SERVER_MISSING } from "@muster/test-support";
import { closeTeams, openTeam } from "@muster/wiring";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  clone,
  hostShell,
  hostsForbidden,
  type NatsTeam,
  startNatsTeam,
} from "../test/nats-team.ts";
import { MUSTER, musterKit } from "../test/run.ts";

// Skipped, saying why, where there is no nats-server or the kernel forbids the namespaces.
const forbidden = NATS_SERVER_MISSING ?? hostsForbidden();
if (forbidden && !NATS_SERVER_MISSING)
  console.log(`two-host test skipped: unshare is forbidden here (${forbidden})`);

const { scratch, muster } = musterKit("muster-cli-hosts-");
const repoA = clone(scratch, "host-a-clone");
const repoB = clone(scratch, "host-b-clone");
let team: NatsTeam;
const shells: Awaited<ReturnType<typeof hostShell>>[] = [];

beforeAll(async () => {
  if (forbidden) return;
  team = await startNatsTeam(muster, scratch, repoA, ["alice", "bob"]);
}, 60_000);

afterAll(async () => {
  await Promise.all(shells.map((shell) => shell.kill()));
  await closeTeams();
  await team?.server.stop();
});

/** A shell on a host of its own: its namespaces, its hostname, its HOME, its clone. */
async function host(name: string, repo: string, member: string) {
  const shell = await hostShell({ scratch, team, name, repo, member });
  shells.push(shell);
  return shell;
}

describe.skipIf(forbidden !== undefined)("two hosts on one NATS team", () => {
  test.skipIf(!LONG_TESTS)(
    "cards, leases, mail and liveness cross the hosts",
    async () => {
      const a = await host("host-a", repoA, "alice");
      const b = await host("host-b", repoB, "bob");
      await a.run(["join", "alice", "--id", "a1"]);
      await b.run(["join", "bob", "--id", "b1"]);

      // From a third place (this test's), each is another host's: judged by its heartbeat, which
      // its own host's beater keeps fresh.
      const opened = await openTeam({ cwd: repoA, env: { ...process.env, ...team.env("alice") } });
      if (!opened.ok) throw new Error(opened.error);
      const read = await opened.roster.read();
      const places = read.ok ? new Set(read.members.map((member) => member.place)) : new Set();
      expect(places.size).toBe(2);
      // Each beats again after its join (its host's beater: the join's own beat would keep it
      // fresh for the whole test without one).
      const joined = new Map(read.ok ? read.members.map((m) => [m.id, m.heartbeatAt]) : []);
      await eventually(
        async () => {
          const now = await opened.roster.read();
          return now.ok ? now.members : [];
        },
        (rows) =>
          rows.length === 2 &&
          rows.every(
            (row) => row.reason === "heartbeat-fresh" && row.heartbeatAt > joined.get(row.id)!,
          ),
        "both members beaten by their host's beater, live by their heartbeat",
        { attempts: 200, intervalMs: 100 },
      );

      // A card claimed on host A is claimed as seen from host B.
      await a.run(["board", "add", "shared", "work", "--id", "a1"]);
      await a.run(["board", "claim", "c1", "--id", "a1"]);
      const board = JSON.parse(await b.run(["board", "--json", "--id", "b1"]));
      expect(board.cards).toMatchObject([{ id: "c1", owner: { label: "alice" } }]);

      // A lease taken on host A refuses host B's commit of a leased path.
      await a.run(["lease", "src/**", "--reason", "refactor", "--id", "a1"]);
      expect((await b.sh("mkdir -p src && echo x > src/a.ts && git add src/a.ts")).status).toBe(0);
      const guarded = await b.sh(`'${process.execPath}' '${MUSTER}' guard`);
      expect(guarded.status).not.toBe(0);
      expect(guarded.output).toMatch(/alice/);
      expect(guarded.output).toContain("src/a.ts");

      // Mail sent on host A reaches a follower on host B.
      await b.sh(
        `('${process.execPath}' '${MUSTER}' inbox --follow --json --id b1 > '${scratch}/follow.jsonl' 2>&1 &)`,
      );
      await a.run(["send", "bob", "from host a", "--id", "a1"]);
      await eventually(
        async () => (await b.sh(`cat '${scratch}/follow.jsonl'`)).output,
        (text) => text.includes("from host a"),
        "the message at host B's follower",
        { attempts: 200, intervalMs: 100 },
      );
    },
    120_000,
  );
});
