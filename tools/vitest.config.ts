import { defineConfig } from "vitest/config";

// src/ only: the fixtures hold files that only look like tests. (`include`, not `dir`: the root
// run resolves `dir` from the repository's root, where it would find nothing.)
export default defineConfig({
  test: { include: ["src/**/*.test.ts"], isolate: false, testTimeout: 30_000 },
});
