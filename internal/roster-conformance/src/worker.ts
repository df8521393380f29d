// A roster client in its own process, for the suite's tests with real processes, on whatever store
// the harness names: `node worker.ts <module> <config> <mode> <id> [label]`, where <module> exports
// `openConformanceRoster(config)`. Every answer is one JSON line on stdout.
//   hold:  joins <label> as <id> (kept live by this process), prints the answer, idles until killed.
//   race:  reads "<label> <startAtMs>" lines, joins at that moment, prints each answer.
//   claim: joins as <id>, then reads "<card> <startAtMs>" lines and claims the card at that moment.
//   activity: reports <id>'s activity (busy, idle, …) as an engine's hooks do, with a breath
//          between reports, printing "reporting" once it has started, until killed.
//   prune: prunes the team again and again (folding receipts), printing "pruning", until killed.
//   wake:  reads "<member> <startAtMs>" lines, takes one of the member's wake slots (core's rate)
//          at that moment, prints each answer.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { DEFAULT_WAKE_POLICY, decideChange, ownerVerdict, wakeRate } from "@muster/core";
import { processStart } from "@muster/node";
import type { WorkerModule } from "./harness.ts";

const [moduleFile, config, mode, id, label = id] = process.argv.slice(2);
const store: WorkerModule = await import(pathToFileURL(moduleFile!).href);
const roster = await store.openConformanceRoster(config!);
const self = {
  id: id!,
  agent: "test",
  pid: process.pid,
  pidStart: processStart(process.pid),
  watching: { armed: true, wake: false },
  liveness: "process" as const,
};
const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
/**
 * Every racer leaves at the same moment: asleep until just before it, then spinning to it. (Spinning
 * the whole wait, 16 racers on a 2-core machine burnt several CPU-seconds a round and left the
 * other racers' starts, and every other test, without a core.)
 */
const SPIN_MS = 30;
const spinUntil = async (at: number) => {
  const asleep = at - Date.now() - SPIN_MS;
  if (asleep > 0) await new Promise((resolve) => setTimeout(resolve, asleep));
  while (Date.now() < at) {
    // spin
  }
};

if (mode === "hold") {
  say(await roster.join({ ...self, label: label! }));
  setInterval(() => undefined, 1 << 30);
} else if (mode === "race") {
  for await (const line of createInterface({ input: process.stdin })) {
    const [raceLabel, startAt] = line.split(" ");
    await spinUntil(Number(startAt));
    say(await roster.join({ ...self, label: raceLabel! }));
  }
} else if (mode === "claim") {
  say(await roster.join({ ...self, label: label! }));
  const board = roster.board({ ownerVerdict });
  const actor = { label: label!, id: id! };
  for await (const line of createInterface({ input: process.stdin })) {
    const [card, startAt] = line.split(" ");
    await spinUntil(Number(startAt));
    say(
      await board.change({
        card: card!,
        actor: actor.id,
        decide: (snapshot) => decideChange(snapshot, actor, { kind: "claim", card: card! }),
        after: "keep",
      }),
    );
  }
} else if (mode === "activity") {
  for (let reported = 0; ; reported += 1) {
    const at = new Date().toISOString();
    const state = reported % 2 === 0 ? "working" : "idle";
    await roster.activity(id!, () => ({
      activity: { state, since: at, at, signal: "claude/pre-tool-use" },
    }));
    if (reported === 0) say("reporting");
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
  }
} else if (mode === "wake") {
  for await (const line of createInterface({ input: process.stdin })) {
    const [target, startAt] = line.split(" ");
    await spinUntil(Number(startAt));
    say(await roster.takeWakeSlot(target!, id!, wakeRate(DEFAULT_WAKE_POLICY)));
  }
} else if (mode === "prune") {
  say("pruning");
  for (;;) await roster.prune();
}
