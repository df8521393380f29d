// The roster's conformance suite on the NATS store, its half with real processes: the same races
// to join and to claim, SIGKILLed holders and renames under another process's reports as the team
// folder passes, on a real nats-server of this file's own. The rest is conformance.test.ts. It
// starts about a hundred Node processes (17 s of CPU, the most of any file in `pnpm test`): with
// the storms, in `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs; `pnpm test` keeps the same
// half on the team folder (internal/roster-conformance) and the rules half here.
import { rosterConformance } from "@muster/roster-conformance";
import { LONG_TESTS, NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, describe } from "vitest";
import { natsHarness } from "../test/conformance-harness.js";

const nats = natsHarness();
afterAll(() => nats.stop(), 30_000);
describe.skipIf(!LONG_TESTS || NATS_SERVER_MISSING)("on a real nats-server", () => {
  rosterConformance(nats.harness, "processes");
});
