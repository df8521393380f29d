// Which store a team is on, and what it is called across machines, on real git repositories.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { allowTeamServer, chooseStore } from "./team-store.ts";

const base = mkdtempSync(path.join(tmpdir(), "muster-store-choice-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-C", cwd, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

/** A clone-like repository with `origin` set to `url` (no network: only the remote's URL). */
function repository(name: string, url?: string): string {
  const dir = path.join(base, name);
  execFileSync("git", ["init", "-q", "-b", "main", dir]);
  git(dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x");
  if (url) git(dir, "remote", "add", "origin", url);
  return dir;
}

const env = (extra: Record<string, string> = {}) => ({
  HOME: base,
  PATH: process.env.PATH ?? "",
  MUSTER_HOME: path.join(base, "state"),
  ...extra,
});
const nats = { MUSTER_NATS: "nats://127.0.0.1:4222", MUSTER_NATS_CREDS: "~/me.nk" };

describe("which store the team is on", () => {
  test("no configuration: the folder, and @muster/nats is not needed", async () => {
    const dir = repository("plain", "git@github.com:acme/plain.git");
    expect(await chooseStore({ cwd: dir, env: env() })).toMatchObject({
      ok: true,
      store: "folder",
    });
  });

  test("clones over ssh and https, and a worktree, are one team on NATS", async () => {
    const ssh = repository("ssh-clone", "git@github.com:Acme/App.git");
    const https = repository("https-clone", "https://github.com/acme/app");
    git(ssh, "worktree", "add", "-q", "-b", "side", path.join(base, "ssh-side"));
    const answers = await Promise.all(
      [ssh, https, path.join(base, "ssh-side")].map((cwd) => chooseStore({ cwd, env: env(nats) })),
    );
    const teams = answers.map((answer) =>
      answer.ok && answer.store === "nats" ? answer.team : undefined,
    );
    expect(teams[0]).toMatchObject({ name: "github.com/acme/app", source: "origin" });
    expect(new Set(teams.map((team) => team?.id)).size).toBe(1);
    expect(answers[0]).toMatchObject({ settings: { credsFile: path.join(base, "me.nk") } });
  });

  test("the main checkout's muster.toml chooses it; a branch's own copy does not", async () => {
    const dir = repository("toml", "https://example.com/x/y.git");
    git(dir, "worktree", "add", "-q", "-b", "other", path.join(base, "toml-other"));
    writeFileSync(path.join(base, "toml-other", "muster.toml"), '[nats]\nurl = "nats://evil:1"\n');
    expect(await chooseStore({ cwd: path.join(base, "toml-other"), env: env() })).toMatchObject({
      store: "folder",
    });
    writeFileSync(
      path.join(dir, "muster.toml"),
      '[nats]\nurl = "tls://nats.example.com:4222"\ncreds = "~/y.nk"\nteam = "x/y"\n',
    );
    // A server the repository names is refused until the person allows it, then used.
    const refused = await chooseStore({ cwd: path.join(base, "toml-other"), env: env() });
    expect(refused).toMatchObject({ ok: false, reason: "server-not-allowed" });
    if (!refused.ok) expect(refused.fix).toContain("muster nats allow");
    expect(await allowTeamServer({ cwd: dir, env: env() })).toMatchObject({
      ok: true,
      allowed: { url: "tls://nats.example.com:4222", team: "x/y", creds: path.join(base, "y.nk") },
      file: path.join(base, ".config", "muster", "allowed.json"),
    });
    expect(await chooseStore({ cwd: path.join(base, "toml-other"), env: env() })).toMatchObject({
      store: "nats",
      settings: { servers: ["tls://nats.example.com:4222"], tls: true, source: "muster.toml" },
      team: { name: "x/y", source: "configured" },
    });
  });

  test("a FIFO planted as muster.toml is no configuration, and is not waited on", async () => {
    const dir = repository("fifo", "https://example.com/x/fifo.git");
    execFileSync("mkfifo", [path.join(dir, "muster.toml")]);
    expect(await chooseStore({ cwd: dir, env: env() })).toMatchObject({ store: "folder" });
  });

  test("NATS with no origin and no name is refused with the fix", async () => {
    const dir = repository("no-origin");
    const answer = await chooseStore({ cwd: dir, env: env(nats) });
    expect(answer).toMatchObject({ ok: false, reason: "no-team-name" });
    if (!answer.ok) expect(answer.fix).toContain("MUSTER_NATS_TEAM");
    expect(
      await chooseStore({ cwd: dir, env: env({ ...nats, MUSTER_NATS_TEAM: "t" }) }),
    ).toMatchObject({
      store: "nats",
      team: { name: "t" },
    });
  });
});
