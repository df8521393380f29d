import { defineConfig } from "vitest/config";

export default defineConfig({ test: { typecheck: { enabled: true }, testTimeout: 30_000 } });
