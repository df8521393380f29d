// A member of the SIGKILL storm (src/storm.test.ts), in its own process, against the built package:
// `node test/storm-worker.ts <mode> <team dir> <id>`. Every step it finishes prints one line, so
// the storm can kill it after a chosen number of steps, whatever the machine's load.
//   chaos:  random join / heartbeat / send / receive+ack / leave. Prints "sent <recipient id> <message
//           id>", "acking <reader id> <ms> <message ids…>" before it acks and "acked <reader id>
//           <message id> <ms>" after (the same <ms>: the wall clock when the ack began), "joined
//           <label>", "left", or "step".
//   staller: chaos, but with a clock 6 s slow (its locks look stale to the others at once, as if it
//           had stalled past LOCK_STALE_MS) that stops itself (SIGSTOP, "stalled") right after it
//           takes a label's takeover lock; the storm continues it a moment later.
//   prune:  prune in a loop with a 1.5 s TTL, racing the others' reclaims and re-joins. Prints
//           "forgetting <id> <ms>" just before it moves a mailbox aside and "forgot <id> <ms>" just
//           after (<ms>: the wall clock then), and "step" after each prune.
// A line "quiet" on stdin ends the loop after the current step: the worker prints "idle <label it
// believes it holds, or ->" and waits to be killed.
import { createInterface } from "node:readline";
import { nodeFs, processStart, processFacts as procFacts } from "@muster/node";
import { openRoster, type RosterFs } from "../dist/index.js";

const [mode, dir, id = `w${process.pid}`] = process.argv.slice(2);
const slow = mode === "staller" ? 6_000 : 0;
const fs: RosterFs =
  mode === "prune"
    ? {
        ...nodeFs,
        // Said before and after it happens: a pruner killed mid-prune never prints its report,
        // and a reader's ack may land between the two.
        async rename(from, to) {
          const mailbox = /\/mail\/([^/]+)$/.exec(from);
          if (mailbox) console.log(`forgetting ${mailbox[1]} ${Date.now()}`);
          await nodeFs.rename(from, to);
          if (mailbox) console.log(`forgot ${mailbox[1]} ${Date.now()}`);
        },
      }
    : mode === "staller"
      ? {
          ...nodeFs,
          async link(from, to) {
            await nodeFs.link(from, to);
            if (/\/locks\/labels\.[^/]+\.lock$/.test(to) && Math.random() < 0.5) {
              console.log("stalled");
              process.kill(process.pid, "SIGSTOP");
            }
          },
        }
      : nodeFs;
const opened = await openRoster({
  dir: dir!,
  fs,
  clock: () => Date.now() - slow,
  processes: procFacts,
  policy: mode === "prune" ? { staleAfterMs: 1_000, ttlMs: 1_500 } : undefined,
});
if (!opened.ok) {
  console.log(JSON.stringify(opened));
  process.exit(1);
}
const roster = opened.roster;
let quiet = false;
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line === "quiet") quiet = true;
});

const self = {
  agent: "test",
  pid: process.pid,
  pidStart: processStart(process.pid),
  liveness: "heartbeat" as const,
};
const watching = { armed: true, wake: false };
const labels = ["lead", "alpha", "beta", "gamma"];
const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)]!;
let belief: string | undefined;

/** A label to join: the staller goes for labels held by the dead, to take them over. */
async function chooseLabel(): Promise<string> {
  if (mode !== "staller") return pick([...labels, id]);
  const read = await roster.read();
  const dead = read.ok
    ? read.members.filter((member) => member.holdsLabel && member.reason === "process-dead")
    : [];
  return dead.length > 0 ? pick(dead).label : pick(labels);
}

let steps = 0;
async function chaosStep(): Promise<string[]> {
  // A new life starts with a join; the staller joins most often, to be the one taking over.
  const step = steps++ === 0 ? 0 : Math.random() * (mode === "staller" ? 0.5 : 1);
  if (step < 0.3) {
    const joined = await roster.join({ ...self, id, label: await chooseLabel(), watching });
    if (!joined.ok) return ["step"];
    belief = joined.label;
    return [`joined ${joined.label}`];
  }
  if (step < 0.4) {
    await roster.heartbeat(id);
    return ["step"];
  }
  if (step < 0.75) {
    const to = pick([...labels, "all"]);
    const receipt = await roster.send({ from: id, to, body: `from ${id} at ${Date.now()}` });
    if (!receipt.ok) return ["step"];
    return receipt.to.map((recipient) => `sent ${recipient.id} ${receipt.id}`);
  }
  if (step < 0.95) {
    const inbox = await roster.receive(id);
    if (!inbox.ok || inbox.messages.length === 0) return ["step"];
    const ids = inbox.messages.map((message) => message.id);
    // Said before it happens (a pipe write is synchronous): a reader killed between moving its mail
    // to cur/ and printing "acked" may have read it.
    const began = Date.now();
    process.stdout.write(`acking ${id} ${began} ${ids.join(" ")}\n`);
    const done = await roster.ack(id, ids);
    return done.ok && done.acked.length > 0
      ? done.acked.map((acked) => `acked ${id} ${acked} ${began}`)
      : ["step"];
  }
  const left = await roster.leave(id);
  if (left.ok) belief = undefined;
  return ["left"];
}

async function pruneStep(): Promise<string[]> {
  await roster.prune();
  return ["step"];
}

while (!quiet) {
  const lines = mode === "prune" ? await pruneStep() : await chaosStep();
  // One write per step: a kill lands between steps or inside one, never inside a line.
  process.stdout.write(`${lines.join("\n")}\n`);
  // A breath between steps: the others' steps still overlap this one's, but a worker running flat
  // out sent ~20,000 messages in a 240-kill storm, and every prune then walked all their receipts.
  // The pruner yields too: nodeFs is synchronous, so a loop of prunes alone never lets stdin's
  // "quiet" be read.
  await new Promise((resolve) =>
    mode === "prune" ? setImmediate(resolve) : setTimeout(resolve, Math.random() * 4),
  );
}
console.log(`idle ${belief ?? "-"}`);
setInterval(() => undefined, 1 << 30);
