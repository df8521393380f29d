// The NATS server configuration an operator runs for muster teams, printed by muster rather than
// written by hand: one account per team (a subject space of its own, so one team can neither read
// nor write another's subjects, buckets or streams), JetStream limits per account, and one nkey
// user per member whose permissions allow the team's store and nothing else — and who may send
// mail and heartbeats only under its own name, so the sender a subject carries is authentic.
import { nkeys } from "@nats-io/transport-node";
import { teamResources } from "./_team-name.js";

export type MemberKey = { member: string; publicKey: string };

export type TeamConfig = {
  /** The team's id (`teamId(name)`), which every resource name is made from. */
  id: string;
  /** The team's name, shown in a comment. */
  name: string;
  members: readonly MemberKey[];
  /**
   * The public key of the team's operator: the one user who makes the team's bucket and mail
   * stream (`muster nats init`), and puts their settings back. None: nobody can make them.
   */
  operator?: string | undefined;
};

export type ServerConfigInput = {
  teams: readonly TeamConfig[];
  /**
   * `host:port` to listen on (default `127.0.0.1:4222`, this machine only). Beyond loopback the
   * team's mail would cross the network, so it needs `tls` (`listenRefusal`).
   */
  listen?: string | undefined;
  /** Where JetStream keeps its files. */
  storeDir: string;
  /** TLS: certificate and key files (PEM); without them the server speaks in the clear. */
  tls?: { cert: string; key: string } | undefined;
};

/** A member name: what the subjects and the comments carry. */
const MEMBER = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** A fresh nkey pair for a member: the seed is the member's credentials file, the public key the server's. */
export function newMemberKey(): { seed: string; publicKey: string } {
  const pair = nkeys.createUser();
  return { seed: new TextDecoder().decode(pair.getSeed()), publicKey: pair.getPublicKey() };
}

/** Whether `publicKey` is an nkey user's public key (`U…`, its checksum right). */
export function isMemberKey(publicKey: string): boolean {
  if (!publicKey.startsWith("U")) return false;
  try {
    nkeys.fromPublic(publicKey);
    return true;
  } catch {
    return false;
  }
}

/**
 * The prefix of the replies a connection with this public key is sent (`_INBOX_<key>`): a member
 * may subscribe to its own replies only, never to `_INBOX.>` and another's. `connectTeam` sets it
 * from the seed it connects with; a `.creds` user made with `nsc` needs the same permission.
 */
export const inboxPrefixFor = (publicKey: string) => `_INBOX_${publicKey}`;

/**
 * The subjects member `member` (public key `publicKey`) of team `id` may publish to and subscribe
 * on: the team's bucket and stream and the calls the store makes on them — never making,
 * changing, purging or deleting a stream (the operator makes them: `operatorPermissions`).
 */
export function memberPermissions(id: string, member: string, publicKey: string) {
  const names = teamResources(id);
  const kv = `KV_${names.bucket}`;
  const mail = names.mailStream;
  const api = (what: string) => `$JS.API.${what}`;
  return {
    publish: [
      api("INFO"),
      api(`STREAM.INFO.${kv}`),
      api(`STREAM.INFO.${mail}`),
      api(`STREAM.MSG.GET.${kv}`),
      api(`DIRECT.GET.${kv}`),
      api(`DIRECT.GET.${kv}.>`),
      api(`CONSUMER.CREATE.${kv}`),
      api(`CONSUMER.CREATE.${kv}.>`),
      api(`CONSUMER.INFO.${kv}.>`),
      api(`CONSUMER.DELETE.${kv}.>`),
      api(`CONSUMER.MSG.NEXT.${kv}.>`),
      api(`CONSUMER.CREATE.${mail}`),
      api(`CONSUMER.CREATE.${mail}.>`),
      api(`CONSUMER.DURABLE.CREATE.${mail}.>`),
      api(`CONSUMER.INFO.${mail}.>`),
      api(`CONSUMER.DELETE.${mail}.>`),
      api(`CONSUMER.MSG.NEXT.${mail}.>`),
      `$JS.ACK.${mail}.>`,
      `$JS.FC.${kv}.>`,
      `$JS.FC.${mail}.>`,
      `$KV.${names.bucket}.>`,
      // Mail and heartbeats only under its own name: the last token is the sender.
      `${names.mailPrefix}.*.${member}`,
      `${names.beatSubject}.${member}`,
    ],
    subscribe: [`${inboxPrefixFor(publicKey)}.>`, `${names.beatSubject}.*`],
  };
}

/** The team operator's: a member's, and making the bucket and the mail stream or putting their settings back. */
export function operatorPermissions(id: string, publicKey: string) {
  const names = teamResources(id);
  const member = memberPermissions(id, "operator", publicKey);
  const streams = [`KV_${names.bucket}`, names.mailStream];
  return {
    publish: [
      ...member.publish,
      ...streams.flatMap((stream) => [
        `$JS.API.STREAM.CREATE.${stream}`,
        `$JS.API.STREAM.UPDATE.${stream}`,
      ]),
    ],
    subscribe: member.subscribe,
  };
}

const quoted = (text: string) => JSON.stringify(text);
const list = (items: readonly string[], indent: string) =>
  `[\n${items.map((item) => `${indent}  ${quoted(item)}`).join(",\n")}\n${indent}]`;

function userBlock(
  comment: string,
  publicKey: string,
  permissions: { publish: string[]; subscribe: string[] },
): string {
  return [
    `      # ${comment}`,
    `      { nkey: ${publicKey}, permissions: {`,
    `        publish: { allow: ${list(permissions.publish, "        ")} }`,
    `        subscribe: { allow: ${list(permissions.subscribe, "        ")} }`,
    "      } }",
  ].join("\n");
}

function accountBlock(team: TeamConfig): string {
  const names = teamResources(team.id);
  const users = team.members.map((member) => {
    if (!MEMBER.test(member.member)) throw new Error(`"${member.member}" is not a member name`);
    if (!isMemberKey(member.publicKey))
      throw new Error(`the key of ${member.member} is not an nkey user's public key`);
    if (member.member === "operator")
      throw new Error(`"operator" is the team operator's name, not a member's`);
    return userBlock(
      member.member,
      member.publicKey,
      memberPermissions(team.id, member.member, member.publicKey),
    );
  });
  if (team.operator !== undefined) {
    if (!isMemberKey(team.operator))
      throw new Error("the operator's key is not an nkey user's public key");
    users.push(
      userBlock(
        "operator (makes the bucket: muster nats init)",
        team.operator,
        operatorPermissions(team.id, team.operator),
      ),
    );
  }
  return [
    `  # team ${quoted(team.name)}`,
    `  ${quoted(names.account)}: {`,
    // Room for the bucket (128 MB) and the mail stream (256 MB) three times over (R3).
    "    jetstream: { max_mem: 64MB, max_file: 2GB, max_streams: 4, max_consumers: 1024 }",
    `    users: [\n${users.join("\n")}\n    ]`,
    "  }",
  ].join("\n");
}

/**
 * How long a client may take to send its credentials (s). The default 2 s is outlasted by a few
 * dozen handshakes at once on a loaded 2-core machine (measured: "Authentication Timeout").
 */
export const AUTH_TIMEOUT = "authorization { timeout: 10 }";

/** The `accounts { … }` block: one account per team, its members its users. */
export function accountsConfig(teams: readonly TeamConfig[]): string {
  return ["accounts {", teams.map(accountBlock).join("\n"), "}"].join("\n");
}

/** Where a server listens when not told: this machine only. */
export const DEFAULT_LISTEN = "127.0.0.1:4222";

/** Whether `listen` (`host:port`, or a port alone: every interface) is this machine only. */
export function isLoopbackListen(listen: string): boolean {
  const colon = listen.lastIndexOf(":");
  if (colon < 0) return false;
  const host = listen
    .slice(0, colon)
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Why a server may not listen at `listen` as configured, or undefined: beyond loopback the team's
 * mail and seeds' signatures cross the network, so TLS is required there.
 */
export function listenRefusal(listen: string, tls: boolean): string | undefined {
  if (tls || isLoopbackListen(listen)) return undefined;
  return `listening at ${listen} reaches beyond this machine: give it TLS (--tls-cert FILE --tls-key FILE), or listen on 127.0.0.1`;
}

/** The whole server configuration, as text for `nats-server -c`. */
export function serverConfig(input: ServerConfigInput): string {
  const listen = input.listen ?? DEFAULT_LISTEN;
  const refused = listenRefusal(listen, input.tls !== undefined);
  if (refused) throw new Error(refused);
  return [
    "# muster's NATS server configuration: one account per team, one nkey user per member.",
    "# Members connect with their seed file (MUSTER_NATS_CREDS); nobody connects without one.",
    `listen: ${quoted(listen)}`,
    "max_payload: 1MB",
    AUTH_TIMEOUT,
    `jetstream { store_dir: ${quoted(input.storeDir)} }`,
    ...(input.tls
      ? [`tls { cert_file: ${quoted(input.tls.cert)}, key_file: ${quoted(input.tls.key)} }`]
      : []),
    accountsConfig(input.teams),
    "",
  ].join("\n");
}
