// A storm on a real three-node cluster with R3 (routes on loopback), under `pnpm test:long` only:
// 8 roster processes race to join one label a round while this process sends mail, and one node
// is killed mid-storm and brought back. One holder per label every round (none while the cluster
// has no leader is allowed, two never), no acknowledged message lost or doubled, every process
// served again once the node is back. Bounded: 6 rounds, 3 minutes at most.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LONG_TESTS, lineQueue, NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { settled } from "../test/cluster-kit.js";
import { natsRoster, type WorkerConfig } from "../test/conformance-worker.js";
import { startTeams, type TestTeams } from "../test/team-server.js";

const WORKER = path.join(
  path.dirname(fileURLToPath(import.meta.resolve("@muster/roster-conformance"))),
  "worker.ts",
);
const MODULE = path.join(import.meta.dirname, "..", "test", "conformance-worker.ts");
const RACERS = 8;
const ROUNDS = 6;

let teams: TestTeams;
const children: ChildProcess[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  if (!LONG_TESTS) return;
  teams = await startTeams({ "acme/storm": ["alice"] }, { cluster: true });
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await Promise.all(closers.map((close) => close()));
  await teams?.stop();
});

describe.skipIf(!LONG_TESTS || NATS_SERVER_MISSING)("a storm on a three-node cluster", () => {
  test("one holder per label, no acknowledged mail lost or doubled, a node killed and back", async () => {
    const team = { name: "acme/storm", id: teams.id("acme/storm") };
    const settings = teams.settings("acme/storm", "alice");
    const config: WorkerConfig = { settings, team };
    const { roster, close } = await settled(() => natsRoster(config, { replicas: 3 }));
    closers.push(close);
    const self = { agent: "test", pid: process.pid, watching: { armed: true, wake: false } };
    for (const id of ["sender", "reader"])
      await settled(async () => {
        const joined = await roster.join({ ...self, id, label: id, liveness: "heartbeat" });
        if (!joined.ok) throw new Error(joined.error);
      });
    const racers = Array.from({ length: RACERS }, (_, index) => {
      const child = spawn(
        process.execPath,
        [WORKER, MODULE, JSON.stringify(config), "race", `racer${index}`],
        { stdio: ["pipe", "pipe", "inherit"] },
      );
      children.push(child);
      return { child, answers: lineQueue(child.stdout!) };
    });
    const acknowledged: string[] = [];
    const winners: number[] = [];
    const rounds: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      if (round === 2) await teams.server.nodes[1]!.kill();
      if (round === 4) await teams.server.nodes[1]!.restart();
      const startAt = Date.now() + 1_500;
      for (const racer of racers) racer.child.stdin!.write(`storm${round} ${startAt}\n`);
      // Mail in the middle of the race: a send that answered ok is stored, whatever happens.
      for (let index = 0; index < 5; index += 1) {
        const sent = await roster
          .send({ from: "sender", to: "reader", body: `round ${round} message ${index}` })
          .catch(() => undefined);
        // Acknowledged: stored in the reader's mailbox (a refused recipient was not).
        if (sent?.ok && sent.to.some((delivery) => delivery.id === "reader"))
          acknowledged.push(sent.id);
      }
      const answers = await Promise.all(
        racers.map(async (racer) => JSON.parse(await racer.answers.next())),
      );
      const won = answers.filter((answer) => answer.ok).length;
      winners.push(won);
      rounds.push(`round ${round}: ${JSON.stringify(answers)}`);
      expect(won, `round ${round}: ${JSON.stringify(answers)}`).toBeLessThanOrEqual(1);
    }
    // Before the kill and once the node is back, a round has its one winner; and every racer
    // answered every round (served again after reconnecting).
    expect(winners[0], rounds[0]).toBe(1);
    expect(winners[1], rounds[1]).toBe(1);
    expect(winners[ROUNDS - 1], rounds[ROUNDS - 1]).toBe(1);
    // Every acknowledged message is there once: late on a replica catching up, never lost.
    await expect
      .poll(
        async () => {
          const inbox = await settled(() => roster.receive("reader"));
          return inbox.ok ? inbox.messages.map((message) => message.id).sort() : [];
        },
        { timeout: 60_000, interval: 500 },
      )
      .toEqual([...acknowledged].sort());
    expect(acknowledged.length).toBeGreaterThan(0);
  }, 180_000);
});
