import { defineConfig } from "vitest/config";

export default defineConfig({ test: { isolate: false, testTimeout: 30_000 } });
