// No repository chooses where a person's NATS credentials go, the built binary against a real
// nats-server: a cloned repository whose muster.toml names a relay (a real TCP relay on loopback in
// front of the person's real server) gets no connection at all — no nonce signed, no session on
// the real team — until the person allows that URL for that team (`muster nats allow`); and a
// credentials path is judged by where it leads (`/proc/self/cwd/…`, a symlink into the repository).
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import path from "node:path";
import { NATS_SERVER_MISSING, tmuxEnv } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { beatersIn, clone, type NatsTeam, startNatsTeam } from "../test/nats-team.ts";
import { MUSTER, musterKit } from "../test/run.ts";
import { check, loadSchemas } from "../test/schema-check.ts";

const { scratch, muster } = musterKit("muster-cli-nats-trust-");
const here = clone(scratch, "here");
let team: NatsTeam;

/** A TCP relay on loopback to `upstream`, keeping what clients sent (the CONNECT, its signature). */
function startRelay(upstream: number) {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let sent = "";
  const server: Server = createServer((client) => {
    accepted += 1;
    const onward = createConnection(upstream, "127.0.0.1");
    for (const socket of [client, onward]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.once("close", () => sockets.delete(socket));
    }
    client.on("data", (chunk: Buffer) => {
      sent += chunk.toString("latin1");
    });
    client.pipe(onward);
    onward.pipe(client);
    client.once("close", () => onward.destroy());
    onward.once("close", () => client.destroy());
  });
  return new Promise<{ port: number; accepted(): number; sent(): string; close(): Promise<void> }>(
    (resolve) =>
      server.listen(0, "127.0.0.1", () => {
        const address = server.address();
        resolve({
          port: typeof address === "object" && address ? address.port : 0,
          accepted: () => accepted,
          sent: () => sent,
          close: () =>
            new Promise((done) => {
              for (const socket of sockets) socket.destroy();
              server.close(() => done());
            }),
        });
      }),
  );
}

/**
 * Claude Code's SessionStart hook as Claude Code runs it in `cwd` (a child of a process named
 * claude, nothing typed), with the person's environment. Its output.
 */
function claudeSessionStart(cwd: string): Promise<string> {
  const claude = path.join(scratch, "bin", "claude");
  mkdirSync(path.dirname(claude), { recursive: true });
  const input = JSON.stringify({ session_id: "s1", hook_event_name: "SessionStart", cwd });
  writeFileSync(
    claude,
    `#!/bin/bash\n"${process.execPath}" "${MUSTER}" hook claude session-start <<<'${input}' 2>&1\necho "status $?"\n`,
  );
  chmodSync(claude, 0o755);
  return new Promise((resolve) =>
    execFile(
      claude,
      [],
      { cwd, env: tmuxEnv({ HOME: scratch, ...personal() }), timeout: 30_000 },
      (_error, stdout) => resolve(stdout),
    ),
  );
}

beforeAll(async () => {
  team = await startNatsTeam(muster, scratch, here, ["alice"]);
}, 60_000);

afterAll(async () => {
  // The SessionStart hook, once allowed, joined on NATS and started this host's beater, detached:
  // it is ended here, by pid, so nothing of the test outlives it.
  for (const pid of beatersIn(scratch)) process.kill(pid, "SIGKILL");
  await team?.server.stop();
});

/** The person's own setting: their real seed exported, no server named (muster.toml names one). */
const personal = () => ({ MUSTER_NATS_CREDS: team.env("alice").MUSTER_NATS_CREDS! });

describe.skipIf(NATS_SERVER_MISSING)(
  "a repository's muster.toml names a server the person has not allowed",
  () => {
    test("a relay gets no connection, from a command or a SessionStart hook; allowed, it does", async () => {
      const relay = await startRelay(team.server.port);
      try {
        const cloned = clone(scratch, "cloned");
        writeFileSync(
          path.join(cloned, "muster.toml"),
          `[nats]\nurl = "nats://127.0.0.1:${relay.port}"\n`,
        );
        const roster = await muster(["roster", "--json"], { cwd: cloned, env: personal() });
        const sessionStart = () => claudeSessionStart(cloned);
        const hook = await sessionStart();
        // No session on the real team through the relay: not a byte, so no CONNECT and no signature.
        expect(relay.sent()).not.toContain("CONNECT");
        expect(relay.accepted()).toBe(0);
        expect(roster.status).toBe(1);
        const refusal = JSON.parse(roster.stdout);
        expect(refusal).toMatchObject({ ok: false, reason: "server-not-allowed" });
        expect(refusal.error).toContain("muster nats allow");
        expect(hook).toContain("status 0"); // a hook never fails Claude Code: it stays quiet

        // The person allows that exact URL for that team: then, and only then, muster connects.
        const allowed = await muster(["nats", "allow", "--json"], { cwd: cloned, env: personal() });
        expect(allowed.stderr).toBe("");
        expect(check(loadSchemas(), "nats.schema.json", JSON.parse(allowed.stdout))).toEqual([]);
        expect(JSON.parse(allowed.stdout)).toMatchObject({
          ok: true,
          allowed: {
            url: `nats://127.0.0.1:${relay.port}`,
            team: "github.com/acme/app",
            creds: team.env("alice").MUSTER_NATS_CREDS,
          },
        });
        const file = path.join(scratch, ".config", "muster", "allowed.json");
        expect(readFileSync(file, "utf8")).toContain(`127.0.0.1:${relay.port}`);
        const after = await muster(["roster", "--json"], { cwd: cloned, env: personal() });
        expect(JSON.parse(after.stdout)).toMatchObject({ ok: true });
        expect(relay.sent()).toMatch(/CONNECT \{.*"sig":/);
        // The hook alone is a door: allowed, it too connects (so, refused above, it was refused).
        const before = relay.accepted();
        await sessionStart();
        expect(relay.accepted()).toBeGreaterThan(before);

        // Another URL in the same file is a new question: the allowance was for that URL alone.
        writeFileSync(path.join(cloned, "muster.toml"), `[nats]\nurl = "${team.server.url}"\n`);
        const moved = await muster(["roster"], { cwd: cloned, env: personal() });
        expect(moved.status).toBe(1);
        expect(moved.stderr.trim().split("\n")).toHaveLength(1);
        expect(moved.stderr).toContain("muster nats allow");

        // `muster nats deny` takes the allowance back: the relay is refused again, as at first.
        writeFileSync(
          path.join(cloned, "muster.toml"),
          `[nats]\nurl = "nats://127.0.0.1:${relay.port}"\n`,
        );
        const denied = await muster(["nats", "deny", "--json"], { cwd: cloned, env: personal() });
        expect(check(loadSchemas(), "nats.schema.json", JSON.parse(denied.stdout))).toEqual([]);
        expect(JSON.parse(denied.stdout)).toMatchObject({
          ok: true,
          team: "github.com/acme/app",
          removed: [{ url: `nats://127.0.0.1:${relay.port}` }],
        });
        expect(readFileSync(file, "utf8")).not.toContain(`127.0.0.1:${relay.port}`);
        const accepted = relay.accepted();
        const again = await muster(["roster", "--json"], { cwd: cloned, env: personal() });
        expect(JSON.parse(again.stdout)).toMatchObject({ ok: false, reason: "server-not-allowed" });
        expect(relay.accepted()).toBe(accepted);
      } finally {
        await relay.close();
      }
    }, 60_000);

    test("the person's own settings (MUSTER_NATS with MUSTER_NATS_CREDS) need no allowance", async () => {
      const roster = await muster(["roster", "--json"], { cwd: here, env: team.env("alice") });
      expect(JSON.parse(roster.stdout)).toMatchObject({ ok: true });
      const allow = await muster(["nats", "allow", "--json"], {
        cwd: here,
        env: team.env("alice"),
      });
      expect(JSON.parse(allow.stdout)).toMatchObject({ ok: true, allowed: null });
      const plain = clone(scratch, "plain");
      const nothing = await muster(["nats", "allow"], { cwd: plain });
      expect(nothing.status).toBe(1);
      expect(nothing.stderr).toContain("names no NATS server");
    });
  },
);

describe.skipIf(NATS_SERVER_MISSING)("a credentials path is judged by where it leads", () => {
  const planted = () => {
    const repo = clone(scratch, `planted-${Math.random().toString(36).slice(2, 8)}`);
    writeFileSync(path.join(repo, "evil.nk"), readFileSync(team.env("alice").MUSTER_NATS_CREDS!));
    return repo;
  };

  test("/proc/self/cwd/… is inside the repository", async () => {
    const repo = planted();
    writeFileSync(
      path.join(repo, "muster.toml"),
      `[nats]\nurl = "${team.server.url}"\ncreds = "/proc/self/cwd/evil.nk"\n`,
    );
    const run = await muster(["roster"], { cwd: repo });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("inside the repository");
  });

  test("a symlink from the home folder into the repository is inside it", async () => {
    const repo = planted();
    const link = path.join(scratch, "links");
    mkdirSync(link, { recursive: true });
    symlinkSync(path.join(repo, "evil.nk"), path.join(link, `${path.basename(repo)}.nk`));
    writeFileSync(
      path.join(repo, "muster.toml"),
      `[nats]\nurl = "${team.server.url}"\ncreds = "${path.join(link, `${path.basename(repo)}.nk`)}"\n`,
    );
    const run = await muster(["roster"], { cwd: repo });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("inside the repository");
    const env = await muster(["roster"], {
      cwd: repo,
      env: { MUSTER_NATS: team.server.url, MUSTER_NATS_CREDS: path.join(repo, "evil.nk") },
    });
    expect(env.stderr).toContain("inside the repository");
  });
});
