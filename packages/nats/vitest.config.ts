import { withoutNatsServer } from "@muster/test-support/nats-files";
import { configDefaults, defineConfig } from "vitest/config";

// Every file but the settings' and the team name's runs a real nats-server.
const SERVER_FILES = [
  "src/cluster.test.ts",
  "src/conformance-processes.test.ts",
  "src/conformance.test.ts",
  "src/faults.test.ts",
  "src/kv.test.ts",
  "src/listing-lag.test.ts",
  "src/mailbox.test.ts",
  "src/server-config.test.ts",
  "src/store.test.ts",
  "src/storm.test.ts",
];

export default defineConfig({
  test: {
    isolate: false,
    testTimeout: 30_000,
    exclude: [...configDefaults.exclude, ...withoutNatsServer("@muster/nats", SERVER_FILES)],
  },
});
