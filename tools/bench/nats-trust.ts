// The cost of trust on NATS: a roster on a real nats-server (started here, configured as `muster
// nats config` prints it), mail from send to the recipient's wake and then read whole, 1,000
// messages, with every value signed and mail sealed (the store as muster opens it) beside the
// same store with values kept as they are (`natsStore` over the bucket, no trust).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  connectTeam,
  type NatsStore,
  natsStore,
  newMemberKey,
  openBucket,
  openNatsStore,
  serverConfig,
  teamResources,
} from "@muster/nats";
import { nodeSleep, processFacts } from "@muster/node";
import { openRoster } from "@muster/roster";
import { startNatsServer } from "@muster/test-support";
import { type BenchRow, percentile } from "../src/bench-kit.ts";

const MESSAGES = 1000;
const TEAMS = ["bench-trust-on-00000000", "bench-trust-off-0000000"];

type Run = { sendMs: number; wakeP50: number; wakeP99: number; readMs: number; woke: number };

/** Join a sender and a reader, send `MESSAGES` to the reader, wait for each wake, read them all. */
async function mailRun(store: NatsStore): Promise<Run> {
  const opened = await openRoster({
    store,
    sleep: nodeSleep,
    clock: Date.now,
    processes: processFacts,
  });
  if (!opened.ok) throw new Error(opened.error);
  const roster = opened.roster;
  const join = (id: string, label: string) =>
    roster.join({
      id,
      label,
      agent: "pi",
      pid: process.pid,
      watching: { armed: true, wake: false },
      liveness: "heartbeat",
    });
  await join("sender", "sender");
  await join("reader", "reader");
  const latencies: number[] = [];
  let sentAt = 0;
  let woke = 0;
  const watch = await store.mail.watch?.("reader", () => {
    woke += 1;
    latencies.push(performance.now() - sentAt);
  });
  const started = performance.now();
  for (let index = 0; index < MESSAGES; index += 1) {
    sentAt = performance.now();
    const sent = await roster.send({ from: "sender", to: "reader", body: `message ${index}` });
    if (!sent.ok) throw new Error(sent.error);
  }
  const sendMs = performance.now() - started;
  for (let waited = 0; woke < MESSAGES && waited < 10_000; waited += 50) await nodeSleep(50);
  watch?.stop();
  const reading = performance.now();
  const inbox = await roster.receive("reader");
  if (!inbox.ok || inbox.messages.length !== MESSAGES)
    throw new Error(`read ${inbox.ok ? inbox.messages.length : inbox.error}`);
  const readMs = performance.now() - reading;
  return {
    sendMs,
    wakeP50: percentile(latencies, 50),
    wakeP99: percentile(latencies, 99),
    readMs,
    woke,
  };
}

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-bench-trust-"));
  // One key per team: a server takes an nkey in one account only.
  const keys = TEAMS.map((id) => {
    const key = newMemberKey();
    const credsFile = path.join(dir, `${id}.nk`);
    writeFileSync(credsFile, key.seed, { mode: 0o600 });
    // The team's operator makes its bucket (members may not), as `muster nats init` does.
    const operator = newMemberKey();
    const operatorCreds = path.join(dir, `${id}.operator.nk`);
    writeFileSync(operatorCreds, operator.seed, { mode: 0o600 });
    return { id, key, credsFile, operator, operatorCreds };
  });
  const server = await startNatsServer({
    whole: (port, storeDir) =>
      serverConfig({
        teams: keys.map(({ id, key, operator }) => ({
          id,
          name: id,
          members: [{ member: "bench", publicKey: key.publicKey }],
          operator: operator.publicKey,
        })),
        listen: `127.0.0.1:${port}`,
        storeDir,
      }),
  });
  const settingsOf = (credsFile: string) => ({
    store: "nats" as const,
    servers: [server.url],
    tls: false,
    credsFile,
    team: "bench",
    source: "env" as const,
    chosenBy: "person" as const,
  });
  const closers: (() => Promise<void>)[] = [];
  try {
    for (const { id, operatorCreds } of keys) {
      const operator = await connectTeam(settingsOf(operatorCreds));
      if (!operator.ok) throw new Error(operator.error);
      await openBucket(operator.connection, teamResources(id).bucket, { fix: true });
      await operator.connection.close();
    }
    const [onId = "", offId = ""] = TEAMS;
    const on = await openNatsStore(settingsOf(keys[0]?.credsFile ?? ""), { name: onId, id: onId });
    if (!on.ok) throw new Error(on.error);
    closers.push(on.close);
    const settings = settingsOf(keys[1]?.credsFile ?? "");
    const connected = await connectTeam(settings);
    if (!connected.ok) throw new Error(connected.error);
    closers.push(() => connected.connection.close());
    const bucket = await openBucket(connected.connection, teamResources(offId).bucket);
    await bucket.kv.create("meta.team", JSON.stringify({ v: 1, muster: "team", name: offId }));
    const off = natsStore(bucket, offId, settings.servers);
    // Off first, then on: each on a fresh bucket of its own.
    const plain = await mailRun(off);
    const trusted = await mailRun(on.store);
    const per = (ms: number) => ms / MESSAGES;
    const note = `${trusted.woke} and ${plain.woke} woke of ${MESSAGES.toLocaleString("en")}`;
    return [
      {
        name: "nats, signed + sealed: send 1,000 mails (per mail)",
        medianMs: per(trusted.sendMs),
        reference: { name: "nats, unsigned: the same", medianMs: per(plain.sendMs) },
        note,
      },
      {
        name: "nats, signed + sealed: send → wake, p50",
        medianMs: trusted.wakeP50,
        reference: { name: "nats, unsigned: send → wake, p50", medianMs: plain.wakeP50 },
      },
      {
        name: "nats, signed + sealed: send → wake, p99",
        medianMs: trusted.wakeP99,
        reference: { name: "nats, unsigned: send → wake, p99", medianMs: plain.wakeP99 },
      },
      {
        name: "nats, signed + sealed: read 1,000 unread mails (receive)",
        medianMs: trusted.readMs,
        reference: { name: "nats, unsigned: the same", medianMs: plain.readMs },
      },
    ];
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
