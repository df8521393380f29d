import { describe, expect, test } from "vitest";
import { storeSettings } from "./_settings.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these bytes
const CONTROL = /[\u0000-\u001f]/;

const root = "/work/repo";
const settings = (env: Record<string, string>, toml?: string) =>
  storeSettings({
    env,
    root,
    home: "/home/me",
    readFile: (path) => (path === `${root}/muster.toml` ? toml : undefined),
  });

describe("which store a team is on", () => {
  test("no configuration: the folder", () => {
    expect(settings({})).toEqual({ ok: true, settings: { store: "folder" } });
    expect(settings({}, "# nothing about nats\n[other]\nx = 1\n")).toMatchObject({
      settings: { store: "folder" },
    });
  });

  test("the environment: URL, credentials, TLS by the scheme", () => {
    expect(
      settings({ MUSTER_NATS: "nats://h:4222", MUSTER_NATS_CREDS: "~/.config/muster/me.creds" }),
    ).toEqual({
      ok: true,
      settings: {
        store: "nats",
        servers: ["nats://h:4222"],
        tls: false,
        credsFile: "/home/me/.config/muster/me.creds",
        team: undefined,
        source: "env",
        chosenBy: "person",
      },
    });
    expect(
      settings({ MUSTER_NATS: "tls://a:4222, tls://b:4222", MUSTER_NATS_CREDS: "/c" }),
    ).toMatchObject({ settings: { servers: ["tls://a:4222", "tls://b:4222"], tls: true } });
  });

  test("muster.toml, with the environment winning key by key", () => {
    const toml = '[nats]\nurl = "tls://t:4222"\ncreds = "~/t.creds"\nteam = "acme/app"\n';
    expect(settings({}, toml)).toMatchObject({
      settings: {
        servers: ["tls://t:4222"],
        credsFile: "/home/me/t.creds",
        team: "acme/app",
        chosenBy: "repository",
      },
    });
    // The person's URL with the repository's credentials path is still the repository's pairing.
    expect(settings({ MUSTER_NATS: "nats://e:1" }, toml)).toMatchObject({
      settings: { chosenBy: "repository" },
    });
    expect(settings({ MUSTER_NATS: "nats://e:1", MUSTER_NATS_CREDS: "/e" }, toml)).toMatchObject({
      settings: {
        servers: ["nats://e:1"],
        credsFile: "/e",
        team: "acme/app",
        source: "env",
        chosenBy: "person",
      },
    });
  });

  test("every connection authenticates: a URL with no credentials is refused", () => {
    const refused = settings({}, '[nats]\nurl = "nats://attacker.example:4222"\n');
    expect(refused).toMatchObject({ ok: false, reason: "no-credentials" });
    if (!refused.ok) expect(refused.fix).toContain("MUSTER_NATS_CREDS");
  });

  test("credentials committed in the repository are refused", () => {
    expect(settings({}, '[nats]\nurl = "nats://h:1"\ncreds = "secrets/me.creds"\n')).toMatchObject({
      ok: false,
      reason: "creds-in-repository",
    });
    expect(
      settings({ MUSTER_NATS: "nats://h:1", MUSTER_NATS_CREDS: `${root}/me.creds` }),
    ).toMatchObject({ ok: false, reason: "creds-in-repository" });
  });

  test.each([
    ["http://h:4222"],
    ["nats://user:pass@h:4222"],
    ["nats://"],
    ["h:4222"],
    ["nats://h:1,\u001b[31m"],
  ])("%j is refused as a URL, its text escaped", (url) => {
    const refused = settings({ MUSTER_NATS: url, MUSTER_NATS_CREDS: "/c" });
    expect(refused).toMatchObject({ ok: false, reason: "bad-url" });
    if (!refused.ok) expect(refused.error).not.toMatch(CONTROL);
  });

  test.each([
    ["[nats\nurl = 1"],
    ['nats = "x"'],
    ["[nats]\nurl = 4222\n"],
    ['[nats]\npassword = "x"\n'],
    [`[nats]\nurl = "${"x".repeat(70_000)}"\n`],
  ])("a hostile muster.toml is refused, never half-used: %#", (toml) => {
    const refused = settings({}, toml);
    expect(refused).toMatchObject({ ok: false, reason: "bad-config" });
    if (!refused.ok) expect(refused.error).not.toMatch(CONTROL);
  });
});

describe("a credentials path is judged by where it leads", () => {
  const leads: Record<string, string> = {
    "/proc/self/cwd/evil.nk": `${root}/evil.nk`,
    "/home/me/link.nk": `${root}/secrets/me.nk`,
  };
  const resolved = (env: Record<string, string>, toml?: string) =>
    storeSettings({
      env,
      root,
      home: "/home/me",
      readFile: (path) => (path === `${root}/muster.toml` ? toml : undefined),
      resolve: (path) => leads[path] ?? path,
    });

  test("/proc/self/cwd/… and a symlink into the repository are inside it", () => {
    for (const creds of ["/proc/self/cwd/evil.nk", "~/link.nk"]) {
      expect(resolved({}, `[nats]\nurl = "nats://h:1"\ncreds = "${creds}"\n`)).toMatchObject({
        ok: false,
        reason: "creds-in-repository",
      });
      expect(
        resolved({ MUSTER_NATS: "nats://h:1", MUSTER_NATS_CREDS: creds.replace("~", "/home/me") }),
      ).toMatchObject({ ok: false, reason: "creds-in-repository" });
    }
  });

  test("the file connected with is the one judged: the resolved path", () => {
    expect(
      resolved({ MUSTER_NATS: "nats://h:1", MUSTER_NATS_CREDS: "/home/me/me.nk" }),
    ).toMatchObject({ settings: { credsFile: "/home/me/me.nk" } });
  });
});
