// The person's allowances: a pairing of server and credentials the repository made is used only
// when allowed exactly; the person's own settings need none; the file is the person's, 0600.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { addAllowed, allowanceFor, allowedFile, judgeAllowed, readAllowed } from "./_allowed.js";
import type { NatsSettings } from "./_settings.js";

const settings = (extra: Partial<NatsSettings> = {}): NatsSettings => ({
  store: "nats",
  servers: ["nats://relay.example:4222"],
  tls: false,
  credsFile: "/home/me/.config/muster/me.nk",
  team: undefined,
  source: "muster.toml",
  chosenBy: "repository",
  ...extra,
});
const team = { name: "github.com/acme/app" };

describe("the servers a person has allowed", () => {
  test("the repository's pairing is refused until allowed exactly: URL, team and credentials", () => {
    const refused = judgeAllowed(settings(), team, []);
    expect(refused).toMatchObject({ ok: false, reason: "server-not-allowed" });
    if (!refused.ok) expect(refused.fix).toContain("muster nats allow");
    const allowed = [allowanceFor(settings(), team)];
    expect(judgeAllowed(settings(), team, allowed)).toEqual({ ok: true });
    expect(
      judgeAllowed(settings({ servers: ["nats://other.example:4222"] }), team, allowed).ok,
    ).toBe(false);
    expect(judgeAllowed(settings(), { name: "github.com/acme/other" }, allowed).ok).toBe(false);
    expect(judgeAllowed(settings({ credsFile: "/home/me/work.nk" }), team, allowed).ok).toBe(false);
  });

  test("the person's own settings need no allowance", () => {
    expect(judgeAllowed(settings({ chosenBy: "person", source: "env" }), team, [])).toEqual({
      ok: true,
    });
  });

  test("the file is in the person's config folder, 0600, and a bad one allows nothing", () => {
    const home = mkdtempSync(path.join(tmpdir(), "muster-allowed-"));
    expect(allowedFile({}, home)).toBe(path.join(home, ".config", "muster", "allowed.json"));
    expect(allowedFile({ XDG_CONFIG_HOME: "/x" }, home)).toBe("/x/muster/allowed.json");
    expect(allowedFile({ XDG_CONFIG_HOME: "relative" }, home)).toContain(home);
    const file = allowedFile({}, home);
    expect(readAllowed(file)).toEqual([]);
    addAllowed(file, allowanceFor(settings(), team));
    addAllowed(file, allowanceFor(settings(), team));
    expect(readAllowed(file)).toEqual([allowanceFor(settings(), team)]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ v: 1 });
    writeFileSync(file, "{ not json");
    expect(readAllowed(file)).toEqual([]);
  });
});
