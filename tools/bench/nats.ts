// The NATS primitives the roster's NATS store is built on, against a real nats-server on loopback
// (started here, configured as `muster nats config` prints it, connected with a member's seed),
// each beside the team folder's own primitive measured in the same run: a 32-way exclusive create
// of one key, reading 1,000 records, 1,000 whole writes, and mail from send to the recipient's
// wake signal (p50 / p99 of 1,000, none lost). The stores themselves are compared once the NATS
// store implements the roster's store contract.
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  connectTeam,
  createKey,
  listKeys,
  newMemberKey,
  openBucket,
  putKey,
  serverConfig,
  teamResources,
} from "@muster/nats";
import { startNatsServer } from "@muster/test-support";
// The mail stream prototype, measured here: the package keeps it for its own tests and this
// bench, not in its exports (the store keeps mail as keys).
import { Mailboxes } from "../../packages/nats/src/_mailbox.ts";
import { type BenchRow, compare, percentile } from "../src/bench-kit.ts";

const TEAM = "bench-team-000000000000";

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-bench-nats-"));
  const key = newMemberKey();
  const credsFile = path.join(dir, "bench.nk");
  writeFileSync(credsFile, key.seed, { mode: 0o600 });
  // The team's operator makes its bucket and mail stream (members may not), as `muster nats init`.
  const operator = newMemberKey();
  const operatorCreds = path.join(dir, "operator.nk");
  writeFileSync(operatorCreds, operator.seed, { mode: 0o600 });
  const server = await startNatsServer({
    whole: (port, storeDir) =>
      serverConfig({
        teams: [
          {
            id: TEAM,
            name: "bench",
            members: [{ member: "bench", publicKey: key.publicKey }],
            operator: operator.publicKey,
          },
        ],
        listen: `127.0.0.1:${port}`,
        storeDir,
      }),
  });
  const settingsOf = (creds: string) => ({
    store: "nats" as const,
    servers: [server.url],
    tls: false,
    credsFile: creds,
    team: "bench",
    source: "env" as const,
    chosenBy: "person" as const,
  });
  const settings = settingsOf(credsFile);
  // One after another: 32 handshakes at once on a loaded machine outlast the server's 2 s
  // authentication timeout.
  const connections = [];
  for (let index = 0; index < 32; index += 1) {
    const connected = await connectTeam(settings);
    if (!connected.ok) throw new Error(connected.error);
    connections.push(connected.connection);
  }
  try {
    const names = teamResources(TEAM);
    const made = await connectTeam(settingsOf(operatorCreds));
    if (!made.ok) throw new Error(made.error);
    await openBucket(made.connection, names.bucket, { fix: true });
    await Mailboxes.open(made.connection, names);
    await made.connection.close();
    const buckets = await Promise.all(
      connections.map((connection) => openBucket(connection, names.bucket)),
    );
    const bucket = buckets[0]!;
    const claims = path.join(dir, "claims");
    mkdirSync(claims);
    let round = 0;
    const race = await compare(
      async () => {
        round += 1;
        const results = await Promise.all(
          buckets.map((each, index) => createKey(each, `labels.race${round}`, `s${index}`)),
        );
        if (results.filter((result) => result.ok).length !== 1) throw new Error("not one winner");
      },
      async () => {
        const file = path.join(claims, `race${round}.json`);
        const winners = await Promise.all(
          Array.from({ length: 32 }, async (_, index) => {
            const temp = path.join(claims, `.t${round}-${index}.tmp`);
            writeFileSync(temp, `s${index}`);
            try {
              linkSync(temp, file);
              return 1;
            } catch {
              return 0;
            } finally {
              unlinkSync(temp);
            }
          }),
        );
        if (winners.filter((won) => won === 1).length !== 1) throw new Error("not one winner");
      },
      { runs: 11 },
    );
    const records = path.join(dir, "sessions");
    mkdirSync(records);
    const record = (index: number) =>
      JSON.stringify({ v: 1, id: `s${index}`, label: `member-${index}`, agent: "bench", pid: 1 });
    const writes = await compare(
      async () => {
        for (let index = 0; index < 1000; index += 1)
          await putKey(bucket, `sessions.s${index}`, record(index));
      },
      () => {
        for (let index = 0; index < 1000; index += 1) {
          const temp = path.join(records, `.s${index}.tmp`);
          writeFileSync(temp, record(index));
          renameSync(temp, path.join(records, `s${index}.json`));
        }
      },
      { warmup: 1, runs: 5 },
    );
    const reads = await compare(
      async () => {
        const listed = await listKeys(bucket, "sessions.");
        if (listed.length !== 1000) throw new Error(`listed ${listed.length}`);
        for (const entry of listed) JSON.parse(entry.value);
      },
      () => {
        for (const name of readdirSync(records))
          JSON.parse(readFileSync(path.join(records, name), "utf8"));
      },
      { runs: 11 },
    );
    const mail = await Mailboxes.open(connections[0]!, names);
    const reader = await Mailboxes.open(connections[1]!, names);
    await reader.ensure("reader");
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    let woke = 0;
    const watch = await reader.watch("reader", () => {
      woke += 1;
      const sent = sentAt.get(`m${woke}`);
      if (sent !== undefined) latencies.push(performance.now() - sent);
    });
    for (let index = 1; index <= 1000; index += 1) {
      sentAt.set(`m${index}`, performance.now());
      await mail.append("reader", "bench", `m${index}`, `message ${index}`);
    }
    for (let waited = 0; woke < 1000 && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    watch.stop();
    const stored = await reader.count("reader");
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const note = `${woke} woke, ${stored} stored of 1,000`;
    return [
      {
        name: "nats: 32 racers create one key (one winner)",
        medianMs: race.figureMs,
        reference: { name: "folder: 32 racers link one claim file", medianMs: race.referenceMs },
        target: { text: "< 1 s", met: race.figureMs < 1000 },
      },
      {
        name: "nats: read 1,000 records (listKeys + parse)",
        medianMs: reads.figureMs,
        reference: {
          name: "folder: readdir + read + parse 1,000 files",
          medianMs: reads.referenceMs,
        },
        target: { text: "< 50 ms", met: reads.figureMs < 50 },
      },
      {
        name: "nats: 1,000 whole puts, one after another",
        medianMs: writes.figureMs,
        reference: { name: "folder: 1,000 temp + rename writes", medianMs: writes.referenceMs },
      },
      {
        name: "nats: mail append → recipient's wake, p50 (1,000 messages)",
        medianMs: p50,
        target: { text: "< 5 ms", met: p50 < 5 },
        note,
      },
      {
        name: "nats: mail append → recipient's wake, p99",
        medianMs: p99,
        target: { text: "< 20 ms, none lost", met: p99 < 20 && woke === 1000 && stored === 1000 },
      },
    ];
  } finally {
    await Promise.all(connections.map((connection) => connection.close()));
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
