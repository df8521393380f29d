// A server that goes away under a member: every store call fails (thrown, for the roster to
// answer `unwritable` or `unknown`) within a bound instead of hanging, nothing is reported stored
// that was not, and once the server is back the same connection serves again.
// A server killed and restarted, waited on for seconds: `pnpm test:long` (MUSTER_LONG_TESTS),
// which CI runs.

import { LONG_TESTS, NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTeams, type TestTeams } from "../test/team-server.js";
import { openNatsStore } from "./_open-store.js";
import type { NatsStore } from "./_store.js";

let teams: TestTeams;
let store: NatsStore;
let close: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  teams = await startTeams({ "acme/app": ["alice"] });
  const opened = await openNatsStore(
    teams.settings("acme/app", "alice"),
    { name: "acme/app", id: teams.id("acme/app") },
    { timeoutMs: 3_000 },
  );
  if (!opened.ok) throw new Error(opened.error);
  store = opened.store;
  close = opened.close;
}, 30_000);

afterAll(async () => {
  await close();
  await teams?.stop();
});

describe.skipIf(NATS_SERVER_MISSING || !LONG_TESTS)("the server down, then back", () => {
  test("calls fail within a bound while it is down, and serve again after", async () => {
    await store.mail.ensure("bob");
    expect(await store.mail.deliver("bob", "before", "stored")).toBe("delivered");
    await teams.server.nodes[0]!.kill();
    const started = Date.now();
    await expect(store.mail.deliver("bob", "during", "not stored")).rejects.toThrow();
    // Bounded by the client's request timeout, not by the outage.
    expect(Date.now() - started).toBeLessThan(30_000);
    await teams.server.nodes[0]!.restart();
    await expect
      .poll(
        async () =>
          store.get("sessions", "none").then(
            () => "served",
            () => "down",
          ),
        {
          timeout: 30_000,
          interval: 250,
        },
      )
      .toBe("served");
    const unread = await store.mail.unread("bob");
    expect(unread.messages.map((message) => message.id)).toEqual(["before"]);
  }, 60_000);
});
