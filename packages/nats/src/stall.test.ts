// A connection whose server stops answering part way through: the first request unanswered asks
// the server for a PONG, and none coming, it fails with the stalled error, and so does every
// request in flight and each later one, at once, until the server answers again. A request
// unanswered on a server that answers (nobody replied) leaves the connection as it was. Real
// nats-server; the stall is a real TCP relay paused mid-connection (`pnpm test:long`: it holds
// the fault for seconds).
import {
  LONG_TESTS,
  NATS_SERVER_MISSING,
  startTcpPause,
  type TcpPause,
} from "@muster/test-support";
import { errors, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { connectTeam } from "./_connect.js";
import { teamResources } from "./_team-name.js";

const TEAM = "acme/stall";
let teams: TestTeams;
let relay: TcpPause;
const connections: NatsConnection[] = [];

beforeAll(async () => {
  if (NATS_SERVER_MISSING) return;
  teams = await startTeams({ [TEAM]: ["alice"] });
  relay = await startTcpPause(teams.server.nodes[0]!.port);
}, 60_000);

afterAll(async () => {
  relay?.resume();
  await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
  await relay?.close();
  await teams?.stop();
});

async function connected(servers?: string[]) {
  const settings = teams.settings(TEAM, "alice");
  const made = await connectTeam({ ...settings, servers: servers ?? settings.servers });
  if (!made.ok) throw new Error(made.error);
  connections.push(made.connection);
  return made.connection;
}

/** Its own heartbeat subject: one a member may both publish and subscribe to. */
const own = () => `${teamResources(teams.id(TEAM)).beatSubject}.alice`;
const info = "$JS.API.INFO";

describe.skipIf(NATS_SERVER_MISSING)("a connection's stalls", () => {
  test("a request nobody answers on a server that answers leaves the connection as it was", async () => {
    const connection = await connected();
    connection.subscribe(own()); // subscribed, never replying
    const unanswered = await connection.request(own(), "", { timeout: 300 }).catch((e) => e);
    expect(unanswered).toBeInstanceOf(errors.TimeoutError);
    expect(
      JSON.parse(new TextDecoder().decode((await connection.request(info)).data)),
    ).toHaveProperty("type");
  });

  test.skipIf(!LONG_TESTS)(
    "a server stalled mid-connection fails the request in flight and every later one at once, until it answers again",
    async () => {
      const connection = await connected([`nats://127.0.0.1:${relay.port}`]);
      await connection.request(info);
      relay.pause();
      const waiting = connection.request(info, "", { timeout: 120_000 }).catch((e) => e);
      const first = await connection.request(info, "", { timeout: 300 }).catch((e) => e);
      const stalled = {
        code: "ESTALLED",
        message: expect.stringMatching(/did not answer in time/),
      };
      expect(first).toMatchObject(stalled);
      // Each would otherwise wait its own two minutes: far past this test's bound.
      expect(await waiting).toMatchObject(stalled);
      expect(
        await connection.request(info, "", { timeout: 120_000 }).catch((e) => e),
      ).toMatchObject(stalled);
      relay.resume();
      let answer: unknown;
      for (
        let attempt = 0;
        attempt < 50 && !(answer instanceof Object && "data" in answer);
        attempt++
      ) {
        answer = await connection.request(info).catch((e) => e);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(answer).toHaveProperty("data");
    },
    30_000,
  );
});
