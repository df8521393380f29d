import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { isolate: false, typecheck: { enabled: true }, testTimeout: 30_000 },
});
