// The conformance suite on the folder store (the team folder, on the real filesystem); its half
// with real processes racing and crashing is folder-processes.test.ts, run beside this file.
// Its storms (rounds() in the suite) read MUSTER_LONG_TESTS: `pnpm test:long` runs this file again
// with their many rounds.
import { folderHarness } from "./folder-store.ts";
import { rosterConformance } from "./index.ts";

rosterConformance(folderHarness, "rules");
