// One team member for the mail benchmark, in its own process: joins, says "ready", then on "go"
// follows its mailbox (fs.watch plus a sweep) while sending `count` messages to random peers; on
// "stop" prints what it received (ids and send-to-delivery latencies) as one JSON line.
import { watch } from "node:fs";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { nodeFs, processFacts, processStart } from "@muster/node";
import { openRoster } from "@muster/roster";

const [dir, id, peersJson, countText] = process.argv.slice(2);
const peers = JSON.parse(peersJson!) as string[];
const count = Number(countText);
const now = () => performance.timeOrigin + performance.now();
const opened = await openRoster({
  dir: dir!,
  fs: nodeFs,
  clock: Date.now,
  processes: processFacts,
});
if (!opened.ok) throw new Error(opened.error);
const roster = opened.roster;
const joined = await roster.join({
  id: id!,
  label: id!,
  agent: "bench",
  pid: process.pid,
  pidStart: processStart(process.pid),
  watching: { armed: true, wake: true },
  liveness: "process",
});
if (!joined.ok) throw new Error(joined.error);

const received: { id: string; latencyMs: number }[] = [];
let busy = false;
let again = false;
async function sweep() {
  if (busy) {
    again = true;
    return;
  }
  busy = true;
  do {
    again = false;
    const inbox = await roster.receive(id!);
    if (!inbox.ok || inbox.messages.length === 0) continue;
    const arrived = now();
    for (const message of inbox.messages) {
      received.push({
        id: message.id,
        latencyMs: arrived - (JSON.parse(message.body) as { at: number }).at,
      });
    }
    await roster.ack(
      id!,
      inbox.messages.map((message) => message.id),
    );
  } while (again);
  busy = false;
}

console.log("ready");
for await (const line of createInterface({ input: process.stdin })) {
  if (line === "go") {
    watch(roster.inboxFolder(id!)!, () => void sweep());
    setInterval(() => void sweep(), 250);
    for (let index = 0; index < count; index += 1) {
      const to = peers[Math.floor(Math.random() * peers.length)]!;
      const receipt = await roster.send({ from: id!, to, body: JSON.stringify({ at: now() }) });
      if (!receipt.ok) throw new Error(receipt.error);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 4));
    }
    console.log("sent");
  } else if (line === "count") {
    console.log(`count ${received.length}`);
  } else if (line === "stop") {
    await sweep();
    console.log(JSON.stringify(received));
    process.exit(0);
  }
}
