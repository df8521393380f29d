// A real nats-server set up as an operator would from `accountsConfig`: teams with members, each
// member's seed in a file of its own, and a way to connect as any of them.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type NatsServer, startNatsCluster, startNatsServer } from "@muster/test-support";
import { connectTeam } from "../src/_connect.js";
import { AUTH_TIMEOUT, accountsConfig, newMemberKey } from "../src/_server-config.js";
import type { NatsSettings } from "../src/_settings.js";
import { teamId } from "../src/_team-name.js";

export type TestTeams = {
  server: { url: string; urls: string[]; nodes: NatsServer[] };
  /** A team's id, by its name. */
  id(team: string): string;
  /** The settings a member of `team` would have. */
  settings(team: string, member: string): NatsSettings;
  connect(team: string, member: string): ReturnType<typeof connectTeam>;
  stop(): Promise<void>;
};

/** Start a server (or a three-node cluster) whose accounts are `teams`: name → member names. */
export async function startTeams(
  teams: Record<string, string[]>,
  options: { cluster?: boolean } = {},
): Promise<TestTeams> {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-nats-creds-"));
  const seeds = new Map<string, string>();
  const config = `${AUTH_TIMEOUT}\n${accountsConfig(
    Object.entries(teams).map(([name, members]) => ({
      id: teamId(name),
      name,
      members: members.map((member) => {
        const key = newMemberKey();
        const file = path.join(dir, `${teamId(name)}.${member}.nk`);
        writeFileSync(file, `${key.seed}\n`, { mode: 0o600 });
        seeds.set(`${name}\0${member}`, file);
        return { member, publicKey: key.publicKey };
      }),
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
  return {
    server,
    id: teamId,
    settings,
    connect: (team, member) => connectTeam(settings(team, member), { timeoutMs: 5_000 }),
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
