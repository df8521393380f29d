// `muster nats config`: the NATS server configuration an operator runs for this repository's team
// (one account, one nkey user per member with the team's permissions), printed, and each new
// member's seed written to a file of its own outside the repository. Loaded only for this command.
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { printable } from "@muster/core";
import { insideTeam } from "@muster/node";
import { natsTeamName } from "@muster/wiring";
import { type Context, Refusal, UsageError } from "./_context.js";

export type NatsConfigRequest = {
  members: string[];
  out: string | undefined;
  team: string | undefined;
  listen: string | undefined;
  storeDir: string | undefined;
  tlsCert: string | undefined;
  tlsKey: string | undefined;
};

const MEMBER = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** `alice` (a new key) or `alice=UABC…` (keep the key that member has). */
function parseMember(
  text: string,
  isMemberKey: (key: string) => boolean,
): { member: string; publicKey?: string } {
  const [member = "", publicKey] = text.split("=", 2);
  if (!MEMBER.test(member))
    throw new UsageError(
      `"${printable(member)}" is not a member name: use 1-32 lower-case letters, digits, "_" or "-"`,
    );
  if (publicKey !== undefined && !isMemberKey(publicKey))
    throw new UsageError(`the key given for ${member} is not an nkey user's public key (U…)`);
  return publicKey === undefined ? { member } : { member, publicKey };
}

export async function natsConfigCommand(context: Context, request: NatsConfigRequest) {
  if (request.members.length === 0) throw new UsageError("name the team's members: --member NAME");
  const { DEFAULT_LISTEN, isMemberKey, listenRefusal, newMemberKey, serverConfig } = await import(
    "@muster/nats"
  );
  const wanted = request.members.map((text) => parseMember(text, isMemberKey));
  const fresh = wanted.filter((entry) => entry.publicKey === undefined);
  if (fresh.length > 0 && !request.out)
    throw new UsageError("say where the new members' seeds go: --out DIR (outside the repository)");
  if (Boolean(request.tlsCert) !== Boolean(request.tlsKey))
    throw new UsageError("TLS needs both --tls-cert and --tls-key");
  const listen = request.listen ?? DEFAULT_LISTEN;
  const refused = listenRefusal(listen, Boolean(request.tlsCert));
  if (refused) throw new Refusal("listen-without-tls", refused);
  const folder = await context.team();
  const named = await natsTeamName({
    cwd: context.io.cwd,
    env: context.io.env,
    configured: request.team,
    folder: () => context.team(),
  });
  if (!named.ok) throw new Refusal(named.reason, named);
  let out: string | undefined;
  if (fresh.length > 0) {
    out = path.resolve(context.io.cwd, request.out!);
    mkdirSync(out, { recursive: true, mode: 0o700 });
    out = realpathSync(out);
    if (insideTeam(folder, out))
      throw new Refusal(
        "creds-in-repository",
        `${out} is inside the repository; seeds there would be committed — choose a folder outside it`,
      );
  }
  const members = wanted.map((entry) => {
    if (entry.publicKey)
      return { member: entry.member, publicKey: entry.publicKey, credsFile: null };
    const key = newMemberKey();
    const credsFile = path.join(out!, `${entry.member}.nk`);
    // Exclusive: a seed already there is somebody's credentials, never overwritten.
    writeFileSync(credsFile, `${key.seed}\n`, { mode: 0o600, flag: "wx" });
    return { member: entry.member, publicKey: key.publicKey, credsFile };
  });
  const config = serverConfig({
    teams: [{ id: named.id, name: named.name, members }],
    listen,
    storeDir: request.storeDir ?? "/var/lib/nats/jetstream",
    tls:
      request.tlsCert && request.tlsKey
        ? { cert: request.tlsCert, key: request.tlsKey }
        : undefined,
  });
  if (context.json)
    return context.emit({ team: { name: named.name, id: named.id }, members, config });
  context.out(config);
  for (const member of members.filter((entry) => entry.credsFile))
    context.io.stderr.write(
      `${printable(`${member.member}'s seed is in ${member.credsFile}: give it to them alone (their MUSTER_NATS_CREDS)`)}\n`,
    );
}

/** `muster nats allow`: the person allows the server (and credentials) this repository's muster.toml names. */
export async function natsAllowCommand(context: Context) {
  const { allowTeamServer } = await import("@muster/wiring");
  const answer = await allowTeamServer({
    cwd: context.io.cwd,
    env: context.io.env,
    folder: () => context.team(),
  });
  if (!answer.ok) throw new Refusal(answer.reason, answer);
  if (context.json) return context.emit({ allowed: answer.allowed ?? null, file: answer.file });
  context.out(
    answer.allowed
      ? printable(
          `allowed ${answer.allowed.url} for team ${answer.allowed.team} with ${answer.allowed.creds} (kept in ${answer.file})`,
        )
      : "nothing to allow: MUSTER_NATS and MUSTER_NATS_CREDS are your own settings",
  );
}
