import { withoutNatsServer } from "@muster/test-support/nats-files";
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    isolate: false,
    testTimeout: 30_000,
    // The teams on NATS run a real nats-server (test/nats-team.ts).
    exclude: [
      ...configDefaults.exclude,
      ...withoutNatsServer("@muster/cli", ["src/nats*.test.ts"]),
    ],
  },
});
