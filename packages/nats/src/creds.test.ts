// A `.creds` file, as `nsc` makes one for a server in operator (JWT) mode, against a real
// nats-server run that way: an operator, the team's account preloaded in a memory resolver, and a
// user JWT the account signed, written in the standard `.creds` layout (`fmtCreds`, nsc's own).
// muster connects with it and works in the team's bucket; a forged or mismatched file — a user
// signed by an account the server does not know, a JWT altered after signing, a seed that is not
// the user the JWT names, one past its expiry — is refused in one line that says what to do.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { NATS_SERVER_MISSING, type NatsServer, startNatsServer } from "@muster/test-support";
import {
  createAccount,
  createOperator,
  createUser,
  encodeAccount,
  encodeOperator,
  encodeUser,
  fmtCreds,
  type KeyPair,
} from "@nats-io/jwt";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectTeam } from "./_connect.js";
import { openNatsStore } from "./_open-store.js";
import type { NatsSettings } from "./_settings.js";
import { teamId } from "./_team-name.js";

const TEAM = "acme/app";
const operator = createOperator();
const account = createAccount();
const system = createAccount();
const user = createUser();
const dir = mkdtempSync(path.join(tmpdir(), "muster-nats-jwt-"));
let server: NatsServer;

/** A `.creds` file of `jwt` and `pair`'s seed, as nsc writes one; its path. */
function credsFile(name: string, jwt: string, pair: KeyPair): string {
  const file = path.join(dir, `${name}.creds`);
  writeFileSync(file, fmtCreds(jwt, pair), { mode: 0o600 });
  return file;
}

const settings = (file: string): NatsSettings => ({
  store: "nats",
  servers: [server.url],
  tls: false,
  credsFile: file,
  team: TEAM,
  source: "env",
  chosenBy: "person",
});

/** The JWT with one claim changed after signing: the signature no longer covers the claims. */
function tampered(jwt: string, change: (claims: Record<string, unknown>) => void): string {
  const [header, payload, signature] = jwt.split(".");
  const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8"));
  change(claims);
  return [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
}

beforeAll(async () => {
  if (NATS_SERVER_MISSING) return;
  // nsc's account limits (none), with JetStream on: a limit left out is zero.
  const limits = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true };
  const jetstream = { conn: -1, leaf: -1, mem_storage: -1, disk_storage: -1, streams: -1 };
  const accountJwt = await encodeAccount(
    "acme",
    account,
    { limits: { ...limits, ...jetstream, consumer: -1 } },
    { signer: operator },
  );
  // JetStream in operator mode needs a system account, named by the operator and preloaded too.
  const systemJwt = await encodeAccount("SYS", system, {}, { signer: operator });
  const operatorJwt = await encodeOperator("muster-test", operator, {
    system_account: system.getPublicKey(),
  });
  server = await startNatsServer({
    config: [
      `operator: ${operatorJwt}`,
      `system_account: ${system.getPublicKey()}`,
      "resolver: MEMORY",
      "resolver_preload: {",
      `  ${account.getPublicKey()}: ${accountJwt}`,
      `  ${system.getPublicKey()}: ${systemJwt}`,
      "}",
    ].join("\n"),
  });
}, 30_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(NATS_SERVER_MISSING)("a .creds file on a server in operator mode", () => {
  test("connects, and the team's store works with it", async () => {
    const file = credsFile("alice", await encodeUser("alice", user, account), user);
    const opened = await openNatsStore(settings(file), { name: TEAM, id: teamId(TEAM) });
    if (!opened.ok) throw new Error(`${opened.error}: ${opened.fix}`);
    try {
      expect(await opened.store.ready()).toEqual({ ok: true });
      const card = await opened.store.create("cards", "c1", "written with a .creds file");
      expect(card).toBeDefined();
      expect(await opened.store.get("cards", "c1")).toMatchObject({
        text: "written with a .creds file",
      });
    } finally {
      await opened.close();
    }
  });

  const forged: [string, () => Promise<[string, KeyPair]>][] = [
    [
      "a user signed by an account the server does not know",
      async () => [await encodeUser("alice", user, createAccount()), user],
    ],
    [
      "a user JWT altered after its account signed it",
      async () => [
        tampered(await encodeUser("alice", user, account), (claims) => {
          claims.name = "root";
        }),
        user,
      ],
    ],
    [
      "a user JWT that has expired",
      async () => [
        await encodeUser("alice", user, account, {}, { exp: Math.floor(Date.now() / 1000) - 60 }),
        user,
      ],
    ],
    [
      "a seed that is not the user the JWT names",
      async () => [await encodeUser("alice", user, account), createUser()],
    ],
  ];
  test.each(forged)("refuses %s in one line", async (name, make) => {
    const [jwt, pair] = await make();
    const file = credsFile(name.replaceAll(" ", "-"), jwt, pair);
    const connected = await connectTeam(settings(file), { timeoutMs: 3_000, reconnect: false });
    if (connected.ok) await connected.connection.close();
    expect(connected).toMatchObject({
      ok: false,
      reason: "unauthorised",
      error: `the NATS server at ${server.url} refused the credentials`,
    });
    if (connected.ok) return;
    expect(`${connected.error}: ${connected.fix}`).not.toContain("\n");
    expect(connected.fix).toContain("MUSTER_NATS_CREDS");
  });
});
