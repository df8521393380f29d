import { describe, expect, test } from "vitest";
import { normaliseOrigin, teamId, teamName, teamResources } from "./_team-name.js";

describe("a team across machines is named by its repository", () => {
  test.each([
    ["git@github.com:a/b.git"],
    ["https://github.com/a/b"],
    ["https://github.com/a/b.git"],
    ["https://github.com/a/b/"],
    ["ssh://git@github.com/a/b.git"],
    ["ssh://git@github.com:22/a/b"],
    ["https://user:token@github.com/A/B.git"],
    ["git+ssh://git@github.com/a/b"],
    ["git://github.com/a/b.git"],
    ["  git@GitHub.com:a/b.git\n"],
  ])("%j is github.com/a/b", (origin) => {
    expect(normaliseOrigin(origin)).toBe("github.com/a/b");
  });

  test("a local path stays a path; nested groups keep their folders", () => {
    expect(normaliseOrigin("/srv/git/app.git")).toBe("file/srv/git/app");
    expect(normaliseOrigin("file:///srv/git/app.git")).toBe("file/srv/git/app");
    expect(normaliseOrigin("https://gitlab.com/group/sub/app.git")).toBe(
      "gitlab.com/group/sub/app",
    );
  });

  test.each([[""], ["not a url"], ["https://github.com/"], ["git@host:"], ["a\u0007b:c"]])(
    "%j names no team",
    (origin) => {
      expect(normaliseOrigin(origin)).toBeUndefined();
    },
  );

  test("the configured name wins; without either there is no team, with a fix", () => {
    expect(teamName({ configured: "acme/app", origin: "git@github.com:a/b.git" })).toMatchObject({
      ok: true,
      name: "acme/app",
      source: "configured",
    });
    expect(teamName({ origin: "git@github.com:a/b.git" })).toMatchObject({
      ok: true,
      name: "github.com/a/b",
      source: "origin",
    });
    const none = teamName({});
    expect(none).toMatchObject({ ok: false, reason: "no-team-name" });
    if (!none.ok) expect(none.fix).toContain("MUSTER_NATS_TEAM");
    expect(teamName({ configured: "evil\u001b[2Jname" })).toMatchObject({
      ok: false,
      reason: "bad-team-name",
    });
  });

  test("ids are NATS-safe, short, and differ for names that read alike", () => {
    const id = teamId("github.com/a/b");
    expect(id).toMatch(/^github-com-a-b-[0-9a-f]{12}$/);
    expect(teamId("github.com/a.b")).not.toBe(id);
    const long = teamId(`x/${"y".repeat(500)}`);
    expect(long.length).toBeLessThanOrEqual(53);
    expect(teamId("***")).toMatch(/^[0-9a-f]{12}$/);
    const names = teamResources(id);
    for (const name of [names.bucket, names.mailStream, names.account])
      expect(name).toMatch(/^[a-z0-9-]+$/);
    for (const subject of [names.mailPrefix, names.beatSubject])
      expect(subject).toMatch(/^[a-z0-9.-]+$/);
  });
});
