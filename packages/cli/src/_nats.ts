// `muster nats config`: the NATS server configuration an operator runs for this repository's team
// (one account, one nkey user per member with the team's permissions), printed, and each new
// member's seed written to a file of its own outside the repository. Loaded only for this command.
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { printable } from "@muster/core";
import { insideTeam, readRegularFile } from "@muster/node";
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
  /** The public key of the team's operator to keep; none: a new one, its seed in `out`. */
  operator: string | undefined;
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

/** The public key of the operator's seed kept in `out` (`operator.nk`), if one is there. */
function operatorIn(out: string, publicKeyOf: (text: string) => string | undefined) {
  try {
    return publicKeyOf(readRegularFile(path.join(out, "operator.nk")));
  } catch {
    return undefined;
  }
}

export async function natsConfigCommand(context: Context, request: NatsConfigRequest) {
  if (request.members.length === 0) throw new UsageError("name the team's members: --member NAME");
  const { DEFAULT_LISTEN, isMemberKey, listenRefusal, newMemberKey, publicKeyOf, serverConfig } =
    await import("@muster/nats");
  const wanted = request.members.map((text) => parseMember(text, isMemberKey));
  if (wanted.some((entry) => entry.member === "operator"))
    throw new UsageError(`"operator" is the team operator's name (--operator KEY), not a member's`);
  if (request.operator !== undefined && !isMemberKey(request.operator))
    throw new UsageError("the key given with --operator is not an nkey user's public key (U…)");
  const fresh = [
    ...wanted.filter((entry) => entry.publicKey === undefined),
    ...(request.operator === undefined ? [{ member: "operator" }] : []),
  ];
  if (fresh.length > 0 && !request.out)
    throw new UsageError(
      "say where the new seeds go: --out DIR (outside the repository); the team's operator needs one too, or its key: --operator KEY",
    );
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
  const keyOf = (entry: { member: string; publicKey?: string | undefined }) => {
    if (entry.publicKey)
      return { member: entry.member, publicKey: entry.publicKey, credsFile: null };
    const key = newMemberKey();
    const credsFile = path.join(out!, `${entry.member}.nk`);
    // Exclusive: a seed already there is somebody's credentials, never overwritten.
    writeFileSync(credsFile, `${key.seed}\n`, { mode: 0o600, flag: "wx" });
    return { member: entry.member, publicKey: key.publicKey, credsFile };
  };
  const members = wanted.map(keyOf);
  // The operator's seed already in DIR is kept: adding a member does not make a new operator.
  const inOut = request.operator ? undefined : out && operatorIn(out, publicKeyOf);
  const { publicKey, credsFile } = keyOf({
    member: "operator",
    publicKey: request.operator ?? inOut,
  });
  const operator = { publicKey, credsFile: inOut ? path.join(out!, "operator.nk") : credsFile };
  const config = serverConfig({
    teams: [{ id: named.id, name: named.name, members, operator: operator.publicKey }],
    listen,
    storeDir: request.storeDir ?? "/var/lib/nats/jetstream",
    tls:
      request.tlsCert && request.tlsKey
        ? { cert: request.tlsCert, key: request.tlsKey }
        : undefined,
  });
  if (context.json)
    return context.emit({ team: { name: named.name, id: named.id }, members, operator, config });
  context.out(config);
  for (const member of members.filter((entry) => entry.credsFile))
    context.io.stderr.write(
      `${printable(`${member.member}'s seed is in ${member.credsFile}: give it to them alone (their MUSTER_NATS_CREDS)`)}\n`,
    );
  if (operator.credsFile)
    context.io.stderr.write(
      `${printable(`the operator's seed is in ${operator.credsFile}: keep it; with it, once the server runs: MUSTER_NATS_CREDS=${operator.credsFile} muster nats init`)}\n`,
    );
}

/**
 * `muster nats init`: with the team operator's credentials, make the team's bucket with the
 * team's settings, or put them back on one made with others. Members' credentials may do neither.
 */
export async function natsInitCommand(context: Context) {
  const { chooseStore } = await import("@muster/wiring");
  const chosen = await chooseStore({
    cwd: context.io.cwd,
    env: context.io.env,
    folder: () => context.team(),
  });
  if (!chosen.ok) throw new Refusal(chosen.reason, chosen);
  if (chosen.store === "folder")
    throw new Refusal("no-server", {
      error: "this team is on this machine's folder: there is no NATS bucket to make",
      fix: "name the server first: MUSTER_NATS=nats://host:4222 (or [nats] url in muster.toml)",
    });
  const { openNatsStore } = await import("@muster/nats");
  const opened = await openNatsStore(chosen.settings, chosen.team, {
    fix: true,
    reconnect: false,
  });
  if (!opened.ok) throw new Refusal(opened.reason, opened);
  const bucket = opened.store.address.split(" ").at(-1) ?? "";
  await opened.close();
  if (context.json) return context.emit({ team: chosen.team.name, bucket });
  context.out(
    printable(`the team ${chosen.team.name}'s bucket ${bucket} is ready, with its settings`),
  );
}

/** `muster nats deny`: take back what `muster nats allow` allowed for this repository's team. */
export async function natsDenyCommand(context: Context) {
  const { denyTeamServer } = await import("@muster/wiring");
  const answer = await denyTeamServer({
    cwd: context.io.cwd,
    env: context.io.env,
    folder: () => context.team(),
  });
  if (!answer.ok) throw new Refusal(answer.reason, answer);
  if (context.json)
    return context.emit({ team: answer.team, removed: answer.removed, file: answer.file });
  context.out(
    answer.removed.length === 0
      ? printable(`nothing allowed for team ${answer.team || "(none)"} in ${answer.file}`)
      : printable(
          `denied ${answer.removed.map((entry) => entry.url).join(", ")} for team ${answer.team} (${answer.file}); muster connects there no more until: muster nats allow`,
        ),
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
