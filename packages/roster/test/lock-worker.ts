// A lease taker in its own process, for the lock-wait tests (src/lock-wait.test.ts). Run with
// Node's type stripping against the built package: `node test/lock-worker.ts <mode> <team dir>
// <hold ms> [<clock ahead ms>]`. It takes a lease; right after it takes the team's lease lock it
// prints "locked", then:
//   slow: holds it <hold ms> (a live holder on a loaded machine), then goes on and prints the answer.
//   stop: stops itself (SIGSTOP): alive and stuck until the test continues it, then prints the answer.
// Its clock may run <clock ahead ms> ahead (a lock dated ahead, within the skew bound).
import { nodeFs, nodeSleep, processFacts } from "@muster/node";
import { openRoster } from "../dist/index.js";

const [mode, dir, hold = "0", ahead = "0"] = process.argv.slice(2);
const fs: typeof nodeFs = {
  ...nodeFs,
  async link(from, path) {
    await nodeFs.link(from, path);
    if (!path.endsWith("/locks/leases.table.lock")) return;
    console.log("locked");
    if (mode === "stop") process.kill(process.pid, "SIGSTOP");
    else await nodeSleep(Number(hold));
  },
};
const opened = await openRoster({
  dir: dir!,
  fs,
  clock: () => Date.now() + Number(ahead),
  processes: processFacts,
  sleep: nodeSleep,
});
if (!opened.ok) {
  console.log(JSON.stringify(opened));
  process.exit(1);
}
const lease = {
  holderId: `w${process.pid}`,
  holder: "worker",
  pattern: `worker/${process.pid}`,
  mode: "exclusive" as const,
  reason: "holding the lock",
  ttlMs: 60_000,
};
const taken = await opened.roster.takeLease(
  lease,
  () => true,
  () => ({ ok: true }),
);
console.log(JSON.stringify({ ok: taken.ok, reason: taken.ok ? undefined : taken.reason }));
