// Mail latency: 10 members in their own processes, each following its mailbox, send 1,000
// messages to each other at once; p50 and p99 from send to delivery, and none lost or duplicated.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { lineQueue } from "@muster/test-support";
import { type BenchRow, percentile } from "../src/bench-kit.ts";

const WORKER = path.join(import.meta.dirname, "workers", "mail-member.ts");
const MEMBERS = 10;
const EACH = 100;

function member(dir: string, id: string, peers: string[]) {
  const child = spawn(process.execPath, [WORKER, dir, id, JSON.stringify(peers), String(EACH)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const { next } = lineQueue(child.stdout!);
  return { child, next, say: (line: string) => child.stdin!.write(`${line}\n`) };
}

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-bench-mail-"));
  const ids = Array.from({ length: MEMBERS }, (_, index) => `member-${index}`);
  const children: ChildProcess[] = [];
  try {
    const members = ids.map((id) =>
      member(
        dir,
        id,
        ids.filter((other) => other !== id),
      ),
    );
    children.push(...members.map((entry) => entry.child));
    await Promise.all(
      members.map((entry) =>
        entry.next().then((line) => line === "ready" || Promise.reject(new Error(line))),
      ),
    );
    for (const entry of members) entry.say("go");
    await Promise.all(members.map((entry) => entry.next()));
    // Let the last deliveries land, then collect.
    for (let waited = 0; waited < 5000; waited += 100) {
      for (const entry of members) entry.say("count");
      const counts = await Promise.all(members.map((entry) => entry.next()));
      if (counts.reduce((total, line) => total + Number(line.split(" ")[1]), 0) >= MEMBERS * EACH)
        break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const entry of members) entry.say("stop");
    const received = (await Promise.all(members.map((entry) => entry.next()))).flatMap(
      (line) => JSON.parse(line) as { id: string; latencyMs: number }[],
    );
    const unique = new Set(received.map((message) => `${message.id}`)).size;
    const latencies = received.map((message) => message.latencyMs);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const note = `${received.length} delivered, ${MEMBERS * EACH - unique} lost, ${received.length - unique} duplicated`;
    return [
      {
        name: "mail: send → delivery, p50 (10 members, 1,000 messages)",
        medianMs: p50,
        target: { text: "< 30 ms", met: p50 < 30 },
        note,
      },
      {
        name: "mail: send → delivery, p99",
        medianMs: p99,
        target: {
          text: "< 200 ms, none lost or duplicated",
          met: p99 < 200 && unique === MEMBERS * EACH && received.length === unique,
        },
      },
    ];
  } finally {
    for (const child of children) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}
