// The roster's conformance suite on the NATS store, on a real nats-server: the same takeovers,
// forwarding, receipts, board and leases as the team folder passes. The races and crashes of real
// processes are conformance-processes.test.ts, run beside this file.
// Its storms (rounds() in the suite) read MUSTER_LONG_TESTS: `pnpm test:long` runs this file again
// with their many rounds.
import { rosterConformance } from "@muster/roster-conformance";
import { NATS_SERVER_MISSING } from "@muster/test-support";
import { afterAll, describe } from "vitest";
import { natsHarness } from "../test/conformance-harness.js";

const nats = natsHarness();
afterAll(() => nats.stop(), 30_000);
describe.skipIf(NATS_SERVER_MISSING)("on a real nats-server", () => {
  rosterConformance(nats.harness, "rules");
});
