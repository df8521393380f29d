// One member racing for board cards, in its own process: joins, says "ready", then for each
// "<card> <startAtMs>" line claims the card at that moment through core's rules and prints the
// answer as one JSON line.
import { createInterface } from "node:readline";
import { decideChange, ownerVerdict } from "@muster/core";
import { nodeFs, processFacts, processStart } from "@muster/node";
import { openRoster } from "@muster/roster";

const [dir, id] = process.argv.slice(2);
const opened = await openRoster({
  dir: dir!,
  fs: nodeFs,
  clock: Date.now,
  processes: processFacts,
});
if (!opened.ok) throw new Error(opened.error);
const roster = opened.roster;
const board = roster.board({ ownerVerdict });
const joined = await roster.join({
  id: id!,
  label: id!,
  agent: "bench",
  pid: process.pid,
  pidStart: processStart(process.pid),
  watching: { armed: false, wake: false },
  liveness: "process",
});
if (!joined.ok) throw new Error(joined.error);
const me = { label: id!, id: id! };
console.log("ready");
for await (const line of createInterface({ input: process.stdin })) {
  const [card, startAt] = line.split(" ");
  while (Date.now() < Number(startAt)) {
    // spin: every racer leaves at the same moment
  }
  const answer = await board.change({
    card: card!,
    actor: me.id,
    decide: (now) => decideChange(now, me, { kind: "claim", card: card! }),
    after: "keep",
  });
  console.log(JSON.stringify({ ok: answer.ok }));
}
