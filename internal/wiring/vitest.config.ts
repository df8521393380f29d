import { defineConfig } from "vitest/config";

// The type tests (src/contracts.test-d.ts) are compiled by the package's typecheck (`tsc -p
// tsconfig.json`), which `pnpm test` runs as test:types: not a second time here.
export default defineConfig({ test: { isolate: false, testTimeout: 30_000 } });
