// A team on NATS, the built binary: two clones of one repository at different paths (as on two
// machines) are one team on one real nats-server, each member with its own seed; nothing of the
// team is written to either clone's team folder; status says which store it is on; and a server
// that is down is one line with the fix, nothing reported sent. A shell member is kept beating by
// its host's one beater while its shell lives, and taken off the team when it dies.
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS, NATS_SERVER_MISSING, tmuxEnv } from "@muster/test-support";
import { closeTeams, openTeam } from "@muster/wiring";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { clone, type NatsTeam, startNatsTeam } from "../test/nats-team.ts";
import { MUSTER, musterKit, NOWHERE } from "../test/run.ts";
import { check, loadSchemas } from "../test/schema-check.ts";

const { scratch, muster } = musterKit("muster-cli-nats-team-");
const here = clone(scratch, "here");
const there = clone(scratch, "elsewhere");
let team: NatsTeam;
// A short beat: the beater the first joins start is gone, or beats at this pace, by the next test.
const env = (member: string) => ({ ...team.env(member), MUSTER_HEARTBEAT_MS: "200" });

beforeAll(async () => {
  team = await startNatsTeam(muster, scratch, here, ["alice", "bob"]);
}, 60_000);

afterAll(async () => {
  await team?.server.stop();
});

// Two clones on a real server: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
describe.skipIf(NATS_SERVER_MISSING || !LONG_TESTS)("a team on NATS, from two clones", () => {
  test("join, send and read across the clones; status names the store; no file in a team folder", async () => {
    const joined = await muster(["join", "alice", "--id", "a1", "--json"], {
      cwd: here,
      env: env("alice"),
    });
    expect(joined.stderr).toBe("");
    expect(JSON.parse(joined.stdout)).toMatchObject({ ok: true, label: "alice" });
    expect(
      (await muster(["join", "bob", "--id", "b1"], { cwd: there, env: env("bob") })).status,
    ).toBe(0);
    const sent = await muster(["send", "alice", "hello from elsewhere", "--id", "b1", "--json"], {
      cwd: there,
      env: env("bob"),
    });
    expect(JSON.parse(sent.stdout)).toMatchObject({ ok: true });
    const inbox = await muster(["inbox", "--id", "a1", "--json"], {
      cwd: here,
      env: env("alice"),
    });
    expect(JSON.parse(inbox.stdout).messages).toMatchObject([
      { from: { label: "bob" }, body: "hello from elsewhere" },
    ]);
    const status = await muster(["status", "--json"], { cwd: here, env: env("alice") });
    const document = JSON.parse(status.stdout);
    expect(check(loadSchemas(), "status.schema.json", document)).toEqual([]);
    expect(document.store).toEqual({ kind: "nats", where: "the NATS team github.com/acme/app" });
    expect(document.members.map((member: { label: string }) => member.label).sort()).toEqual([
      "alice",
      "bob",
    ]);
    const text = await muster(["status"], { cwd: there, env: env("bob") });
    expect(text.stdout).toContain("store: the NATS team github.com/acme/app");
    // The team lives on the server: this clone's team folder holds no record.
    const sessions = path.join(document.team.dir, "sessions");
    expect(existsSync(sessions) ? readdirSync(sessions) : []).toEqual([]);
    // Without the settings the clone is its folder's team again: nobody there.
    const plain = await muster(["status", "--json"], { cwd: here });
    expect(JSON.parse(plain.stdout)).toMatchObject({ store: { kind: "folder" }, members: [] });
    // Both leave (their beater, kept by this test's process, then ends).
    for (const [id, member, dir] of [
      ["a1", "alice", here],
      ["b1", "bob", there],
    ] as const)
      expect((await muster(["leave", "--id", id], { cwd: dir, env: env(member) })).status).toBe(0);
  });

  test("a server that is down: one line with the fix, and nothing said to be sent", async () => {
    const down = { ...env("bob"), MUSTER_NATS: "nats://127.0.0.1:1" };
    const sent = await muster(["send", "alice", "lost?", "--id", "b1", "--json"], {
      cwd: there,
      env: down,
    });
    expect(sent.status).toBe(1);
    expect(sent.stderr.trim().split("\n")).toHaveLength(1);
    expect(sent.stderr).toMatch(/cannot reach the team's NATS server at nats:\/\/127\.0\.0\.1:1/);
    expect(JSON.parse(sent.stdout)).toMatchObject({ ok: false, reason: "unreachable" });
  });
});

describe.skipIf(NATS_SERVER_MISSING || !LONG_TESTS)("this host's beater", () => {
  const record = async (id: string) => {
    const opened = await openTeam({ cwd: here, env: { ...process.env, ...env("alice") } });
    if (!opened.ok) throw new Error(opened.error);
    const read = await opened.roster.read();
    return read.ok ? read.members.find((member) => member.id === id) : undefined;
  };
  afterAll(() => closeTeams());

  test("beats a shell member while its shell lives, one beater per host; takes it off when it dies", async () => {
    const beating = { ...env("alice"), MUSTER_HEARTBEAT_MS: "200" };
    // The member is the shell: it joins, then becomes a long sleep under the same pid.
    const join = `"${process.execPath}" "${MUSTER}" join carol --id c1 ${NOWHERE.join(" ")}`;
    const shell = spawn("sh", ["-c", `${join} && exec sleep 600`], {
      cwd: here,
      env: tmuxEnv({ HOME: scratch, ...beating }),
      stdio: "ignore",
    });
    try {
      const joined = await eventually(() => record("c1"), Boolean, "carol on the team", {
        attempts: 600,
      });
      expect(joined).toMatchObject({ label: "carol", pid: shell.pid, liveness: "process" });
      // Beaten by this host's beater: the record's heartbeat moves on while nothing else writes it.
      await eventually(
        () => record("c1"),
        (now) => now !== undefined && now.heartbeatAt !== joined?.heartbeatAt,
        "carol's heartbeat beaten",
        { attempts: 600 },
      );
      // One per host and team: another beater finds the lock held and ends at once.
      const second = await muster(["beat", "--json"], { cwd: here, env: beating });
      expect(JSON.parse(second.stdout)).toMatchObject({ ok: true, beating: false, reason: "held" });
      expect(check(loadSchemas(), "beat.schema.json", JSON.parse(second.stdout))).toEqual([]);
      shell.kill("SIGKILL");
      // Proven dead by the only host that can prove it: off the team, its label free.
      await eventually(
        () => record("c1"),
        (now) => now === undefined,
        "carol taken off",
        {
          attempts: 600,
        },
      );
      // And the beater ended with nobody left: a new one holds the lock, finds none, and ends.
      const last = await eventually(
        () => muster(["beat", "--json"], { cwd: here, env: beating, timeoutMs: 20_000 }),
        (run) => run.stdout.includes('"done":true'),
        "a beater that ends at once",
        { attempts: 100, intervalMs: 200 },
      );
      expect(last.status).toBe(0);
      for (const line of last.stdout.trim().split("\n"))
        expect(check(loadSchemas(), "beat.schema.json", JSON.parse(line))).toEqual([]);
    } finally {
      shell.kill("SIGKILL");
    }
    // A dozen CLI starts and three waits on the beater's rounds: 37 s on a machine at load 24
    // (the CI of 484d657), 5 s quiet.
  }, 90_000);
});
