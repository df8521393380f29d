// The roster's conformance suite: the roster's behavioural tests, written once against a harness
// that gives them a team on some store. `rosterConformance(harness)` declares every test (vitest);
// the folder store runs it in this package (folder.test.ts), @muster/nats runs it on a real
// nats-server. A store passes when every one passes, unchanged.
import { addressingRules } from "./addressing.ts";
import { boardRules } from "./board.ts";
import { conversationRules } from "./conversation.ts";
import type { ConformanceHarness } from "./harness.ts";
import { holderRules } from "./holders.ts";
import { labelRules } from "./labels.ts";
import { mailRules } from "./mail.ts";
import { processRules } from "./processes.ts";
import { pruneRules } from "./prune.ts";
import { receiptRules } from "./receipts.ts";

export type { ConformanceHarness, ConformanceTeam, TeamEffects, WorkerModule } from "./harness.ts";

/**
 * Which tests to declare: the rules a roster in this process keeps, the races and crashes of real
 * processes, or both. A store's test file may run the two halves as two files, so that Vitest runs
 * them side by side (the processes alone are a minute on a loaded 2-core machine).
 */
export type ConformancePart = "all" | "rules" | "processes";

/** Declare the suite, or one half of it, for one store. */
export function rosterConformance(
  harness: ConformanceHarness,
  part: ConformancePart = "all",
): void {
  if (part !== "processes") {
    labelRules(harness);
    holderRules(harness);
    mailRules(harness);
    conversationRules(harness);
    addressingRules(harness);
    boardRules(harness);
    pruneRules(harness);
  }
  if (part !== "rules") processRules(harness);
  if (part !== "processes") receiptRules(harness);
}
