// The NATS store as the conformance suite's harness: one real nats-server for the test file (an
// account with JetStream, one nkey user), each team a bucket of its own under a fresh team id,
// opened through openNatsStore as a member opens it; a raw value planted by a key write as another
// muster would; a child process opens the same team (conformance-worker.ts).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeSleep } from "@muster/node";
import { openRoster } from "@muster/roster";
import type { ConformanceHarness } from "@muster/roster-conformance";
import { type NatsServer, startNatsServer } from "@muster/test-support";
import { connectTeam } from "../src/_connect.js";
import { openBucket } from "../src/_kv.js";
import { openNatsStore } from "../src/_open-store.js";
import { AUTH_TIMEOUT, newMemberKey } from "../src/_server-config.js";
import type { NatsSettings } from "../src/_settings.js";
import { teamResources } from "../src/_team-name.js";
import type { WorkerConfig } from "./conformance-worker.js";

const WORKER = path.join(import.meta.dirname, "conformance-worker.ts");

/** A harness over one server started on first use; `stop()` ends it (after the file's tests). */
export function natsHarness(): { harness: ConformanceHarness; stop(): Promise<void> } {
  let started: Promise<{ server: NatsServer; settings: NatsSettings; dir: string }> | undefined;
  const start = async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "muster-conformance-nats-"));
    const key = newMemberKey();
    const credsFile = path.join(dir, "member.nk");
    writeFileSync(credsFile, `${key.seed}\n`, { mode: 0o600 });
    const config = `${AUTH_TIMEOUT}\naccounts {\n  conformance: { jetstream: enabled, users: [ { nkey: ${key.publicKey} } ] }\n}\n`;
    const server = await startNatsServer({ config });
    const settings: NatsSettings = {
      store: "nats",
      servers: [server.url],
      tls: false,
      credsFile,
      team: undefined,
      source: "env",
      chosenBy: "person",
    };
    return { server, settings, dir };
  };
  const harness: ConformanceHarness = {
    name: "nats",
    async newTeam() {
      started ??= start();
      const { settings } = await started;
      const id = `conformance-${randomBytes(6).toString("hex")}`;
      const team = { name: id, id };
      const opened = await openNatsStore(settings, team, { timeoutMs: 10_000 });
      if (!opened.ok) throw new Error(opened.error);
      const raw = await connectTeam(settings, { timeoutMs: 10_000 });
      if (!raw.ok) throw new Error(raw.error);
      const bucket = await openBucket(raw.connection, teamResources(id).bucket);
      const config: WorkerConfig = { settings, team };
      return {
        async open(effects) {
          const rostered = await openRoster({ store: opened.store, sleep: nodeSleep, ...effects });
          if (!rostered.ok) throw new Error(rostered.error);
          return rostered.roster;
        },
        async plant(space, key, text) {
          await opened.store.put(space, key, text);
        },
        async plantMail(member, messageId, text) {
          // As another muster of the team writes it: sealed to the member, signed by its writer.
          await opened.store.mail.deliver(member, messageId, text);
        },
        worker: { module: WORKER, config: JSON.stringify(config) },
        async close() {
          await bucket.kv.destroy().catch(() => undefined);
          await raw.connection.close();
          await opened.close();
        },
      };
    },
  };
  return {
    harness,
    async stop() {
      if (!started) return;
      const { server, dir } = await started;
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
