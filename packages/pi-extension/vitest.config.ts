// Each test starts real pi processes (about a second of CPU each): the tests of a file run
// concurrently, a few at a time, so the suite waits on pi rather than on itself.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { include: ["src/**/*.test.ts"], isolate: false, testTimeout: 90_000, maxConcurrency: 4 },
});
