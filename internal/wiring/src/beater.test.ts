// The beater's lock and its end. Seen on one machine: a beater whose NATS server was gone held
// the lock of every team of the same name (the lock was named by the team's name alone), so a
// team of that name on another server got no beater and its shell members went stale, and the
// beater itself never ended (a team it cannot read kept it going).
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Roster } from "@muster/roster";
import { lineQueue } from "@muster/test-support";
import { describe, expect, test } from "vitest";
import { beaterLockName, holdBeaterLock, runBeater } from "./beater.ts";

const store = (address: string | undefined) => ({
  kind: "nats",
  where: "the NATS team github.com/acme/app",
  address,
});

describe("the beater's lock", () => {
  test("is one per store: a team of one name on two servers has two", () => {
    const one = beaterLockName(store("nats nats://127.0.0.1:4222 muster-t1"));
    expect(beaterLockName(store("nats nats://127.0.0.1:4222 muster-t1"))).toBe(one);
    expect(beaterLockName(store("nats nats://127.0.0.1:4333 muster-t1"))).not.toBe(one);
    expect(beaterLockName(store(undefined))).not.toBe(one);
  });

  test("is a socket in a folder of the user's own (0700), not a name anyone can compute", () => {
    const home = mkdtempSync(path.join(tmpdir(), "muster-beater-"));
    try {
      const name = beaterLockName(store("nats nats://127.0.0.1:4222 muster-t2"), {
        MUSTER_HOME: home,
      });
      expect(name.startsWith(home)).toBe(true);
      const folder = statSync(path.dirname(name));
      expect(folder.mode & 0o777).toBe(0o700);
      expect(folder.uid).toBe(process.getuid?.());
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  // Seen: another local user listened on the beater's abstract socket first; no beater ran, and
  // other hosts saw this host's live members as gone. Run as root, with a throwaway uid.
  const OTHER_USER =
    process.getuid?.() === 0 && existsSync("/usr/bin/setpriv") && existsSync("/usr/bin/node");
  test.skipIf(!OTHER_USER)("another local user cannot take it first", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "muster-beater-"));
    const name = beaterLockName(store("nats nats://127.0.0.1:4222 muster-t3"), {
      MUSTER_HOME: home,
    });
    const script = `const net = require("node:net");
      const name = Buffer.from(process.argv[1], "hex").toString();
      net.createServer().on("error", (e) => { console.log(e.code); process.exit(0); })
        .listen(name, () => console.log("took"));
      setTimeout(() => process.exit(0), 5000);`;
    const other = spawn(
      "/usr/bin/setpriv",
      [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "/usr/bin/node",
        "-e",
        script,
        Buffer.from(name).toString("hex"),
      ],
      { stdio: ["ignore", "pipe", "inherit"], cwd: "/" },
    );
    try {
      const lines = lineQueue(other.stdout!);
      const answer = await lines.next();
      expect(answer).not.toBe("took");
      const lock = await holdBeaterLock(name);
      expect(lock.ok).toBe(true);
      if (lock.ok) await lock.release();
    } finally {
      if (other.pid && other.exitCode === null) process.kill(other.pid, "SIGKILL");
      rmSync(home, { recursive: true, force: true });
    }
  });
  // Seen (issue 36's lock, again): with a state root too long for a socket's path (over ~60
  // characters: a deep HOME, XDG_STATE_HOME or MUSTER_HOME), the lock fell back to
  // $TMPDIR/muster-beaters-<uid>, a name any local user can make first: then every beater refused
  // ("not a folder of this user's") and members looked dead to other hosts again.
  test.skipIf(!OTHER_USER)(
    "another local user cannot take it first with a long state root",
    async () => {
      // In the machine's /tmp, not the test run's own temp folder: another user cannot reach into
      // that one (0700), as it can into a shared temp folder.
      const shared = mkdtempSync("/tmp/muster-beater-tmp-");
      chmodSync(shared, 0o1777); // as /tmp is
      const home = mkdtempSync(path.join(tmpdir(), "muster-beater-"));
      const root = path.join(home, "a-state-root-deep-in-a-long-home-folder-".repeat(2));
      const taken = path.join(shared, `muster-beaters-${process.getuid?.()}`);
      const before = process.env.TMPDIR;
      try {
        const made = spawnSync(
          "/usr/bin/setpriv",
          [
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "/usr/bin/mkdir",
            "-m",
            "777",
            taken,
          ],
          { encoding: "utf8" },
        );
        expect(made.status, made.stderr).toBe(0);
        process.env.TMPDIR = shared;
        const name = beaterLockName(store("nats nats://127.0.0.1:4222 muster-t4"), {
          MUSTER_HOME: root,
        });
        const lock = await holdBeaterLock(name);
        expect(lock.ok).toBe(true);
        // Held: a second beater finds it so, and the socket is in a folder of the user's own.
        expect(await holdBeaterLock(name)).toEqual({ ok: false, reason: "held" });
        const folder = path.join(root, "beaters");
        expect(statSync(folder).uid).toBe(process.getuid?.());
        expect(statSync(folder).mode & 0o777).toBe(0o700);
        expect(readdirSync(folder).filter((file) => file.endsWith(".sock"))).toHaveLength(1);
        if (lock.ok) await lock.release();
      } finally {
        if (before === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = before;
        rmSync(shared, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
      }
    },
  );
});

/** A team that cannot be read (its server gone), on a clock the beater's sleeps move on. */
function unreadableTeam(ttlMs: number, readableAfterMs = Number.POSITIVE_INFINITY) {
  let clock = 0;
  const beats: string[] = [];
  const roster = {
    policy: { heartbeatIntervalMs: 100, staleAfterMs: 300, ttlMs },
    read: async () =>
      clock >= readableAfterMs
        ? {
            ok: true as const,
            members: [{ id: "m1", liveness: "process", state: "live", reason: "process-alive" }],
          }
        : { ok: false as const, reason: "unknown" as const, error: "the server is gone" },
    heartbeat: async (id: string) => {
      beats.push(id);
      return { ok: true as const, label: id };
    },
    leave: async () => ({ ok: true as const, left: false }),
  } as unknown as Pick<Roster, "read" | "heartbeat" | "leave" | "policy">;
  return {
    roster,
    beats,
    sleep: async (ms: number) => {
      clock += ms;
    },
    now: () => clock,
  };
}

describe("the beater's end", () => {
  test("a team unreadable past its TTL ends the beater, and lets the lock go", async () => {
    const team = unreadableTeam(1_000);
    const lockName = `\0muster-beater-test-${process.pid}-a`;
    const ended = await runBeater({ ...team, intervalMs: 100, lockName });
    expect(ended).toEqual({ ok: true, rounds: 12, unreachable: true });
    // The lock is free again: the next beater holds it (and ends the same way).
    expect((await runBeater({ ...unreadableTeam(100), intervalMs: 100, lockName })).ok).toBe(true);
  });

  test("an outage shorter than the TTL does not: the beater beats again once it reads", async () => {
    const team = unreadableTeam(1_000, 700);
    const lockName = `\0muster-beater-test-${process.pid}-b`;
    let rounds = 0;
    const ended = await runBeater({
      ...team,
      intervalMs: 100,
      lockName,
      onRound: () => {
        rounds += 1;
        // Ends the test's beater after a few readable rounds: unreadable for good (as above).
        if (rounds === 12) team.roster.read = async () => ({ ok: false }) as never;
      },
    });
    expect(team.beats.length).toBeGreaterThanOrEqual(4);
    expect(team.beats.every((id) => id === "m1")).toBe(true);
    expect(ended).toMatchObject({ ok: true, unreachable: true });
  });
});
