// The roster's conformance suite on the NATS store, its half with real processes: the same races
// to join and to claim, SIGKILLed holders and renames under another process's reports as the team
// folder passes, on a real nats-server of this file's own. The rest is conformance.test.ts.
import { rosterConformance } from "@muster/roster-conformance";
import { NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, describe } from "vitest";
import { natsHarness } from "../test/conformance-harness.js";

const nats = natsHarness();
afterAll(() => nats.stop(), 30_000);
describe.skipIf(NATS_SERVER_MISSING)("on a real nats-server", () => {
  rosterConformance(nats.harness, "processes");
});
