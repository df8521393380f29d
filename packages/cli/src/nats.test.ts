// `muster nats config`, the built binary: the configuration it prints is one nats-server accepts,
// each new member's seed is a file of its own (0600, never overwritten), never inside the repository;
// and doctor says which store the team is on, and whether its NATS server answers. The two runs of a
// real nats-server are `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  freePort,
  LONG_TESTS,
  NATS_SERVER_MISSING,
  natsServerPath,
  startNatsServer,
} from "@muster/test-support";
import { describe, expect, test } from "vitest";
import { musterKit } from "../test/run.ts";
import { check, loadSchemas } from "../test/schema-check.ts";

const { scratch, muster } = musterKit("muster-cli-nats-");
const repo = path.join(scratch, "repo");
mkdirSync(repo);
execFileSync("git", ["init", "-q", repo]);
execFileSync("git", ["-C", repo, "remote", "add", "origin", "git@github.com:acme/app.git"]);

describe("muster nats config", () => {
  test("prints a configuration nats-server accepts, and writes each new seed alone", async ({
    skip,
  }) => {
    skip(NATS_SERVER_MISSING !== undefined, NATS_SERVER_MISSING);
    skip(!LONG_TESTS, "a real server's run: pnpm test:long");
    const seeds = path.join(scratch, "seeds");
    const run = await muster(
      [
        "nats",
        "config",
        "--member",
        "alice",
        "--member",
        "bob",
        "--out",
        seeds,
        "--store-dir",
        path.join(scratch, "js"),
        "--json",
      ],
      { cwd: repo },
    );
    expect(run.status).toBe(0);
    const answer = JSON.parse(run.stdout);
    expect(check(loadSchemas(), "nats.schema.json", answer)).toEqual([]);
    expect(answer).toMatchObject({ ok: true, team: { name: "github.com/acme/app" } });
    expect(answer.members.map((member: { member: string }) => member.member)).toEqual([
      "alice",
      "bob",
    ]);
    for (const member of answer.members) {
      expect(readFileSync(member.credsFile, "utf8")).toMatch(/^SU[A-Z2-7]{56}\n$/);
      expect(statSync(member.credsFile).mode & 0o777).toBe(0o600);
      expect(answer.config).toContain(member.publicKey);
    }
    const file = path.join(scratch, "nats.conf");
    writeFileSync(file, answer.config);
    const checked = spawnSync(natsServerPath(), ["-t", "-c", file], { encoding: "utf8" });
    expect(`${checked.stdout}${checked.stderr}`).toMatch(/configuration file .* is valid/);
    // A seed already there is somebody's: the second run refuses rather than overwrite it.
    const before = readFileSync(answer.members[0].credsFile, "utf8");
    const again = await muster(["nats", "config", "--member", "alice", "--out", seeds], {
      cwd: repo,
    });
    expect(again.status).not.toBe(0);
    expect(readFileSync(answer.members[0].credsFile, "utf8")).toBe(before);
  });

  test("a known key is kept; seeds inside the repository and bad names are refused", async () => {
    const inside = await muster(
      ["nats", "config", "--member", "carol", "--out", path.join(repo, "seeds")],
      { cwd: repo },
    );
    expect(inside.status).toBe(1);
    expect(inside.stderr).toContain("inside the repository");
    const bad = await muster(
      ["nats", "config", "--member", "../x", "--out", path.join(scratch, "s2")],
      { cwd: repo },
    );
    expect(bad.status).toBe(2);
    const key = "UDDO4TZSP6LWOX4Q66MTK76EYFALZHAVVHNUNGVOOAJMKFR7IL645J2Y";
    const forged = await muster(["nats", "config", "--member", `dave=U${"A".repeat(55)}`], {
      cwd: repo,
    });
    expect(forged.status).toBe(2);
    const kept = await muster(["nats", "config", "--member", `dave=${key}`, "--operator", key], {
      cwd: repo,
    });
    expect(kept.status).toBe(0);
    expect(kept.stdout).toContain(`nkey: ${key}`);
  });
});

describe("muster nats config: where the server listens", () => {
  test("this machine only by default; beyond it refused without TLS, in one line with the fix", async () => {
    const made = await muster(
      [
        "nats",
        "config",
        "--member",
        "dave=UDDO4TZSP6LWOX4Q66MTK76EYFALZHAVVHNUNGVOOAJMKFR7IL645J2Y",
        "--operator",
        "UDDO4TZSP6LWOX4Q66MTK76EYFALZHAVVHNUNGVOOAJMKFR7IL645J2Y",
        "--json",
      ],
      { cwd: repo },
    );
    expect(JSON.parse(made.stdout).config).toContain('listen: "127.0.0.1:4222"');
    const wide = [
      "nats",
      "config",
      "--member",
      "dave=UDDO4TZSP6LWOX4Q66MTK76EYFALZHAVVHNUNGVOOAJMKFR7IL645J2Y",
      "--operator",
      "UDDO4TZSP6LWOX4Q66MTK76EYFALZHAVVHNUNGVOOAJMKFR7IL645J2Y",
      "--listen",
      "0.0.0.0:4222",
    ];
    const refused = await muster(wide, { cwd: repo });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("--tls-cert FILE --tls-key FILE");
    const tls = await muster(
      [...wide, "--tls-cert", "/etc/nats/c.pem", "--tls-key", "/etc/nats/k.pem"],
      { cwd: repo },
    );
    expect(tls.status).toBe(0);
    expect(tls.stdout).toContain('listen: "0.0.0.0:4222"');
    expect(tls.stdout).toContain("tls { cert_file:");
  });
});

describe("doctor: the team's store", () => {
  const storeLine = (stdout: string) =>
    stdout.split("\n").find((line) => line.includes("team store"));
  const lineOf = (stdout: string, name: string) =>
    stdout.split("\n").find((line) => line.includes(` ${name}: `)) ?? "";

  test("no configuration: this machine's folder", async () => {
    const run = await muster(["doctor"], { cwd: repo });
    expect(storeLine(run.stdout)).toContain("this machine's team folder");
  });

  test("a server that is down: one line saying so, with the fix", async () => {
    const seeds = path.join(scratch, "seeds-down");
    const made = await muster(["nats", "config", "--member", "erin", "--out", seeds, "--json"], {
      cwd: repo,
    });
    const port = await freePort();
    const env = {
      MUSTER_NATS: `nats://127.0.0.1:${port}`,
      MUSTER_NATS_CREDS: JSON.parse(made.stdout).members[0].credsFile,
    };
    const run = await muster(["doctor"], { cwd: repo, env });
    expect(run.status).toBe(1);
    expect(storeLine(run.stdout)).toMatch(
      /cannot reach the team's NATS server at nats:\/\/127\.0\.0\.1:\d+ — fix: start the team's NATS server/,
    );
  });

  test("the configuration muster printed, run by a real server, answers the member's seed", async ({
    skip,
  }) => {
    skip(NATS_SERVER_MISSING !== undefined, NATS_SERVER_MISSING);
    skip(!LONG_TESTS, "a real server's run: pnpm test:long");
    const seeds = path.join(scratch, "seeds-up");
    let credsFile = "";
    let operatorFile = "";
    const server = await startNatsServer({
      whole: async (port, storeDir) => {
        const made = await muster(
          [
            "nats",
            "config",
            "--member",
            "frank",
            "--out",
            seeds,
            "--listen",
            `127.0.0.1:${port}`,
            "--store-dir",
            storeDir,
            "--json",
          ],
          { cwd: repo },
        );
        const answer = JSON.parse(made.stdout);
        credsFile = answer.members[0].credsFile;
        operatorFile = answer.operator.credsFile;
        return answer.config;
      },
    });
    try {
      const env = { MUSTER_NATS: server.url, MUSTER_NATS_CREDS: credsFile };
      const run = await muster(["doctor"], { cwd: repo, env });
      expect(storeLine(run.stdout)).toContain(
        `NATS at ${server.url}, team github.com/acme/app (env) answers`,
      );
      // The team is on NATS: doctor checks its store, not a team folder this machine has none of.
      expect(run.stdout).not.toMatch(/team folder|ENOENT|does not use it yet/);
      expect(lineOf(run.stdout, "NATS TLS")).toMatch(/^✓ NATS TLS: in the clear on this machine/);
      // A member's seed may not make the team's bucket: doctor says who does.
      expect(lineOf(run.stdout, "NATS bucket")).toMatch(
        /^✗ NATS bucket: .*not made yet.* — fix: the team's operator runs: muster nats init/,
      );
      const member = await muster(["nats", "init"], { cwd: repo, env });
      expect(member.status).toBe(1);
      expect(member.stderr.trim().split("\n")).toHaveLength(1);
      expect(member.stderr).toContain("may not make it");
      const init = await muster(["nats", "init", "--json"], {
        cwd: repo,
        env: { ...env, MUSTER_NATS_CREDS: operatorFile },
      });
      expect(init.stderr).toBe("");
      expect(check(loadSchemas(), "nats.schema.json", JSON.parse(init.stdout))).toEqual([]);
      const after = await muster(["doctor"], { cwd: repo, env });
      expect(lineOf(after.stdout, "NATS bucket")).toMatch(/^✓ NATS bucket: .*the team's settings/);
      const other = await muster(
        [
          "nats",
          "config",
          "--member",
          "stranger",
          "--out",
          path.join(scratch, "seeds-stranger"),
          "--json",
        ],
        { cwd: repo },
      );
      const strangerCreds = JSON.parse(other.stdout).members[0].credsFile;
      const stranger = await muster(["doctor"], {
        cwd: repo,
        env: { MUSTER_NATS: server.url, MUSTER_NATS_CREDS: strangerCreds },
      });
      expect(storeLine(stranger.stdout)).toContain("refused the credentials");
    } finally {
      await server.stop();
    }
  });
});
