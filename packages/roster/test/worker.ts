// A roster client in its own process, for the hostile-folder tests and the roster benchmark. Run
// with Node's type stripping against the built package: `node test/worker.ts <mode> <team dir> …`.
//   hold:  joins <label> as <id> and prints the answer, then idles until killed.
//   race:  reads "<label> <startAtMs>" lines on stdin, joins at that moment, prints the answer
//          (tools/bench/roster.ts: 32 processes racing for one label).
import { createInterface } from "node:readline";
import { nodeFs, nodeSleep, processStart, processFacts as procFacts } from "@muster/node";
import { openRoster } from "../dist/index.js";

const [mode, dir, id = `w${process.pid}`, label = id] = process.argv.slice(2);
const opened = await openRoster({
  dir: dir!,
  fs: nodeFs,
  clock: Date.now,
  processes: procFacts,
  sleep: nodeSleep,
});
if (!opened.ok) {
  console.log(JSON.stringify(opened));
  process.exit(1);
}
const roster = opened.roster;
const self = {
  agent: "test",
  pid: process.pid,
  pidStart: processStart(process.pid),
  liveness: "heartbeat" as const,
};
const watching = { armed: true, wake: false };

if (mode === "hold") {
  console.log(JSON.stringify(await roster.join({ ...self, id, label, watching })));
  setInterval(() => undefined, 1 << 30);
} else if (mode === "race") {
  for await (const line of createInterface({ input: process.stdin })) {
    const [raceLabel, startAt] = line.split(" ");
    while (Date.now() < Number(startAt)) {
      // spin: every racer leaves at the same moment
    }
    console.log(JSON.stringify(await roster.join({ ...self, id, label: raceLabel!, watching })));
  }
}
