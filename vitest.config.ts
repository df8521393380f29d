// `pnpm test` runs every package's tests in one Vitest run: one pool of workers shared by all the
// packages (each package's own vitest.config.ts still applies to its files), so a package waiting
// on real processes (pi, tmux, a storm) does not hold the others up. `--maxWorkers=3` is given in
// the root `test:vitest` script: on 2 cores Vitest would start one worker, and these tests mostly
// wait on processes they started; 3 took the wall time of 4 with 12 s less CPU (2026-12-02).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["packages/*", "internal/*", "tools"],
    // Ends, by pid, whatever a test left running: Vitest would wait for it (see the file); and
    // where there is no nats-server, names the files whose cases that need one were skipped.
    globalSetup: ["./tools/src/leaked-processes.ts", "./tools/src/test-run-nats.ts"],
  },
});
