// The roster's conformance suite on the NATS store, on a real nats-server: the same takeovers,
// forwarding, receipts, board and leases as the team folder passes. The races and crashes of real
// processes are conformance-processes.test.ts, run beside this file.
import { rosterConformance } from "@muster/roster-conformance";
import { afterAll } from "vitest";
import { natsHarness } from "../test/conformance-harness.js";

const nats = natsHarness();
afterAll(() => nats.stop(), 30_000);
rosterConformance(nats.harness, "rules");
