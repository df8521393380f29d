import { defineConfig } from "vitest/config";

// The teams on NATS run a real nats-server (test/nats-team.ts): where there is none, their cases
// skip (NATS_SERVER_MISSING from @muster/test-support), and the run says so.
export default defineConfig({ test: { isolate: false, testTimeout: 30_000 } });
