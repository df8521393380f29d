// A real nats-server set up as an operator would from `accountsConfig`: teams with members, each
// member's seed in a file of its own, and a way to connect as any of them. Each team also has its
// operator (connect as "operator"), who makes the team's bucket and mail stream as `muster nats
// init` does, before the test runs — unless the team is named `unmade`.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type NatsServer, startNatsCluster, startNatsServer } from "@muster/test-support";
import { connectTeam } from "../src/_connect.js";
import { openBucket } from "../src/_kv.js";
import { Mailboxes } from "../src/_mailbox.js";
import {
  AUTH_TIMEOUT,
  accountsConfig,
  inboxPrefixFor,
  newMemberKey,
} from "../src/_server-config.js";
import type { NatsSettings } from "../src/_settings.js";
import { teamId, teamResources } from "../src/_team-name.js";
import { settled } from "./cluster-kit.js";

export type TestTeams = {
  server: { url: string; urls: string[]; nodes: NatsServer[] };
  /** A team's id, by its name. */
  id(team: string): string;
  /** The settings a member of `team` would have. */
  settings(team: string, member: string): NatsSettings;
  connect(team: string, member: string): ReturnType<typeof connectTeam>;
  /** The prefix of the replies a member of `team` is sent. */
  inboxPrefix(team: string, member: string): string;
  stop(): Promise<void>;
};

/** Start a server (or a three-node cluster) whose accounts are `teams`: name → member names. */
export async function startTeams(
  teams: Record<string, string[]>,
  options: { cluster?: boolean; unmade?: string[] } = {},
): Promise<TestTeams> {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-nats-creds-"));
  const seeds = new Map<string, string>();
  const publicKeys = new Map<string, string>();
  const keyFor = (name: string, member: string) => {
    const key = newMemberKey();
    const file = path.join(dir, `${teamId(name)}.${member}.nk`);
    writeFileSync(file, `${key.seed}\n`, { mode: 0o600 });
    seeds.set(`${name}\0${member}`, file);
    publicKeys.set(`${name}\0${member}`, key.publicKey);
    return key.publicKey;
  };
  const config = `${AUTH_TIMEOUT}\n${accountsConfig(
    Object.entries(teams).map(([name, members]) => ({
      id: teamId(name),
      name,
      members: members.map((member) => ({ member, publicKey: keyFor(name, member) })),
      operator: keyFor(name, "operator"),
    })),
  )}`;
  const server = options.cluster
    ? await startNatsCluster({ config }).then((cluster) => ({
        url: cluster.urls[0]!,
        urls: cluster.urls,
        nodes: cluster.nodes,
        stop: cluster.stop,
      }))
    : await startNatsServer({ config }).then((one) => ({
        url: one.url,
        urls: [one.url],
        nodes: [one],
        stop: one.stop,
      }));
  const settings = (team: string, member: string): NatsSettings => {
    const credsFile = seeds.get(`${team}\0${member}`);
    if (!credsFile) throw new Error(`no member ${member} in ${team}`);
    return {
      store: "nats",
      servers: server.urls,
      tls: false,
      credsFile,
      team,
      source: "env",
      chosenBy: "person",
    };
  };
  const connect = (team: string, member: string) =>
    connectTeam(settings(team, member), { timeoutMs: 5_000 });
  const replicas = options.cluster ? 3 : 1;
  for (const team of Object.keys(teams).filter((name) => !options.unmade?.includes(name))) {
    const operator = await connect(team, "operator");
    if (!operator.ok) throw new Error(operator.error);
    const names = teamResources(teamId(team));
    // A cluster just started may have no JetStream leader yet: retried until it has.
    await settled(() => openBucket(operator.connection, names.bucket, { replicas, fix: true }));
    await settled(() => Mailboxes.open(operator.connection, names, { replicas }));
    await operator.connection.close();
  }
  return {
    server,
    id: teamId,
    settings,
    connect,
    inboxPrefix: (team, member) => inboxPrefixFor(publicKeys.get(`${team}\0${member}`) ?? ""),
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
