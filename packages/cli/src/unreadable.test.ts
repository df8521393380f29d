// Files another process made unreadable (mode 000) in the team folder: each is named in a warning
// and set aside where it can be moved, and everything else is still served. Root reads any file,
// so the CLI runs here without root's capabilities, as an ordinary user would.
import { chmodSync, existsSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { musterKit } from "../test/run.ts";

const { scratch, newTeam, muster } = musterKit("muster-unreadable-");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A team of alice, bob and carol; bob has two messages from alice. */
async function team() {
  const dir = newTeam();
  const env = { MUSTER_TEAM_DIR: dir };
  for (const [label, id] of [
    ["alice", "a1"],
    ["bob", "b1"],
    ["carol", "c1"],
  ] as const) {
    expect((await muster(["join", label, "--id", id], { env })).status).toBe(0);
  }
  for (const body of ["first", "second"]) {
    expect((await muster(["send", "bob", body, "--id", "a1"], { env })).status).toBe(0);
  }
  const mail = readdirSync(path.join(dir, "mail", "b1", "new")).sort();
  return { dir, env, mail };
}

describe("mode-000 files in the team folder", () => {
  it("a mode-000 record and claim: roster names them and lists the rest", async () => {
    const { dir, env } = await team();
    chmodSync(path.join(dir, "sessions", "c1.json"), 0);
    chmodSync(path.join(dir, "labels", "carol.json"), 0);
    const result = await muster(["roster", "--json"], { env, unprivileged: true });
    expect(result.status).toBe(0);
    const labels = JSON.parse(result.stdout).members.map(
      (member: { label: string }) => member.label,
    );
    expect(labels).toEqual(["alice", "bob"]);
    const warnings = JSON.parse(result.stdout).warnings.join("\n");
    expect(warnings).toMatch(/sessions\/c1\.json cannot be read \(EACCES/);
    expect(warnings).toMatch(/labels\/carol\.json cannot be read \(EACCES/);
    const human = await muster(["roster"], { env, unprivileged: true });
    expect(human.stderr).toMatch(/^warning: .*sessions\/c1\.json cannot be read/m);
  });

  it("a mode-000 message: inbox serves the other and sets the bad one aside, named", async () => {
    const { dir, env, mail } = await team();
    const [bad, good] = [mail[0]!, mail[1]!];
    chmodSync(path.join(dir, "mail", "b1", "new", bad), 0);
    const result = await muster(["inbox", "--id", "b1", "--json"], { env, unprivileged: true });
    expect(result.status).toBe(0);
    const ids = JSON.parse(result.stdout).messages.map((message: { id: string }) => message.id);
    expect(ids).toEqual([good.replace(/\.json$/, "")]);
    expect(result.stderr).toContain(`mail/b1/new/${bad} cannot be read (EACCES)`);
    expect(existsSync(path.join(dir, "mail", "b1", "new", bad))).toBe(false);
    const quarantined = readdirSync(path.join(dir, "quarantine"));
    expect(quarantined.some((name) => name.endsWith(`-b1-${bad}`))).toBe(true);
  });

  it("prune is not stopped by them: it finishes, and the readable members stay", async () => {
    const { dir, env } = await team();
    chmodSync(path.join(dir, "sessions", "c1.json"), 0);
    const result = await muster(["prune", "--json"], { env, unprivileged: true });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).ok).toBe(true);
    expect(statSync(path.join(dir, "sessions", "a1.json")).isFile()).toBe(true);
    expect(statSync(path.join(dir, "sessions", "b1.json")).isFile()).toBe(true);
    const roster = await muster(["roster", "--json"], { env, unprivileged: true });
    const labels = JSON.parse(roster.stdout).members.map(
      (member: { label: string }) => member.label,
    );
    expect(labels).toEqual(["alice", "bob"]);
  });
});
