import { defineConfig } from "vitest/config";

// Every file but the settings' and the team name's runs a real nats-server: where there is none,
// each skips those cases (NATS_SERVER_MISSING from @muster/test-support), and the run says so.
export default defineConfig({ test: { isolate: false, testTimeout: 30_000 } });
