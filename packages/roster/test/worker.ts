// A roster client in its own process, for the real-filesystem tests. Run with Node's type
// stripping against the built package: `node test/worker.ts <mode> <team dir> …`.
//   race:  reads "<label> <startAtMs> [<team dir>]" lines on stdin, joins at that moment (in that
//          team, default the one given), prints the answer.
//   hold:  joins <label> as <id> and prints "joined", then idles until killed.
import { createInterface } from "node:readline";
import { nodeFs, processStart, processFacts as procFacts } from "@muster/node";
import { openRoster } from "../dist/index.js";

const [mode, dir, id = `w${process.pid}`, label = id] = process.argv.slice(2);
const opened = await openRoster({ dir: dir!, fs: nodeFs, clock: Date.now, processes: procFacts });
if (!opened.ok) {
  console.log(JSON.stringify(opened));
  process.exit(1);
}
const roster = opened.roster;
const openTeam = async (folder: string) => {
  const other = await openRoster({
    dir: folder,
    fs: nodeFs,
    clock: Date.now,
    processes: procFacts,
  });
  if (!other.ok) throw new Error(other.error);
  return other.roster;
};
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
    const [raceLabel, startAt, raceDir] = line.split(" ");
    const target = raceDir ? await openTeam(raceDir) : roster;
    while (Date.now() < Number(startAt)) {
      // spin: every racer leaves at the same moment
    }
    const answer = await target.join({ ...self, id, label: raceLabel!, watching });
    console.log(JSON.stringify(answer));
  }
}
