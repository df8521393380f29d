// The conformance suite on the folder store, its half with real processes: races to join and to
// claim, SIGKILLed holders, renames under another process's reports. The rest is folder.test.ts.
// Its storms (rounds() in the suite) read MUSTER_LONG_TESTS: `pnpm test:long` runs this file again
// with their many rounds.
import { folderHarness } from "./folder-store.ts";
import { rosterConformance } from "./index.ts";

rosterConformance(folderHarness, "processes");
