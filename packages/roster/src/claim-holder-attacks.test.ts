// Attacks on what a takeover and prune read back from the team folder (a real one): a claim's holder
// is a name read from a file, never a path; the displaced claim a takeover parks for the winner of
// its free moment can be a directory, a stale file, or a live member's, and none of that may break
// a takeover, tell a joiner a false `took`, or hold a dead member from prune for ever.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, nodeSleep } from "@muster/node";
import { afterAll, describe, expect, it } from "vitest";
import { openRoster, type ProcessFacts } from "./index.js";

const scratch = mkdtempSync(path.join(tmpdir(), "muster-holder-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let teams = 0;

async function world() {
  teams += 1;
  const dir = path.join(scratch, `team-${teams}`);
  const dead = new Set<number>();
  const processes: ProcessFacts = {
    alive: (pid) => (dead.has(pid) ? "dead" : "alive"),
    place: () => "here",
  };
  const opened = await openRoster({
    dir,
    fs: nodeFs,
    clock: Date.now,
    processes,
    sleep: nodeSleep,
  });
  if (!opened.ok) throw new Error(opened.error);
  return { dir, roster: opened.roster, dead };
}

const member = (id: string, label: string, pid: number) => ({
  id,
  label,
  agent: "pi",
  pid,
  pidStart: "1",
  watching: { armed: true, wake: false },
  liveness: "process" as const,
});

const claimText = (key: string, holder: string, at: string) =>
  `${JSON.stringify({ v: 1, key, holder, at, token: `t-${holder}` })}\n`;

const displacedFile = (dir: string, key: string) =>
  path.join(dir, "labels", `.${key}.json.displaced.tmp`);

describe("attack: a claim's holder read from the team folder", () => {
  it("a claim naming a path as its holder is not a claim: prune never forwards mail outside the team folder", async () => {
    const { dir, roster, dead } = await world();
    await roster.join(member("dead", "lead", 11));
    await roster.join(member("bob", "bob", 12));
    expect(await roster.send({ from: "bob", to: "lead", body: "for the lead" })).toMatchObject({
      ok: true,
    });
    dead.add(11);
    // A record and a maildir where a "holder" that is a path leads, outside the team folder.
    const outside = path.join(scratch, `outside-${teams}`);
    for (const sub of ["new", "tmp", "cur"])
      mkdirSync(path.join(outside, sub), { recursive: true });
    const holder = path.relative(path.join(dir, "mail"), outside);
    const now = new Date().toISOString();
    const record = {
      ...member(holder, "lead", 12),
      v: 1,
      place: "here",
      joinedAt: now,
      heartbeatAt: now,
    };
    writeFileSync(path.join(dir, "sessions", `${holder}.json`), `${JSON.stringify(record)}\n`);
    writeFileSync(path.join(dir, "labels", "lead.json"), claimText("lead", holder, now));
    const pruned = await roster.prune();
    expect(pruned).toMatchObject({ ok: true, removed: ["dead"] });
    expect(readdirSync(path.join(outside, "new"))).toEqual([]);
    // The claim is junk: set aside to quarantine/ (by prune or by the next join), never followed.
    const joined = await roster.join(member("next", "lead", 13));
    expect(joined.ok && joined.took?.from).toBeUndefined();
    expect(
      readdirSync(path.join(dir, "quarantine")).some((name) => name.endsWith("labels-lead.json")),
    ).toBe(true);
  });

  it("a displaced claim naming a path as its holder is ignored by the winner", async () => {
    const { dir, roster } = await world();
    const old = new Date(Date.now() - 60_000).toISOString();
    writeFileSync(displacedFile(dir, "lead"), claimText("lead", "../../x", old));
    const joined = await roster.join(member("fresh", "lead", 13));
    expect(joined).toMatchObject({ ok: true });
    expect(joined.ok && joined.took).toBeUndefined();
  });

  it("a stale displaced claim naming a live member does not tell a fresh joiner it took the label from it", async () => {
    const { dir, roster } = await world();
    await roster.join(member("alive", "bob", 12));
    const old = new Date(Date.now() - 60_000).toISOString();
    writeFileSync(displacedFile(dir, "lead"), claimText("lead", "alive", old));
    const joined = await roster.join(member("fresh", "lead", 13));
    expect(joined).toMatchObject({ ok: true });
    expect(joined.ok && joined.took).toBeUndefined();
    const read = await roster.read({ all: true });
    expect(read.ok && read.members.map((each) => each.id).sort()).toEqual(["alive", "fresh"]);
  });

  it("a directory at the displaced name does not stop a dead holder's label being taken over", async () => {
    const { dir, roster, dead } = await world();
    await roster.join(member("dead", "lead", 11));
    dead.add(11);
    mkdirSync(path.join(displacedFile(dir, "lead"), "x"), { recursive: true });
    const joined = await roster.join(member("next", "lead", 13));
    expect(joined).toMatchObject({ ok: true, took: { from: "dead", reason: "dead" } });
    // The directory was set aside, never deleted.
    expect(existsSync(displacedFile(dir, "lead"))).toBe(false);
    expect(
      readdirSync(path.join(dir, "quarantine")).some((name) =>
        name.endsWith(".lead.json.displaced.tmp"),
      ),
    ).toBe(true);
  });

  it("a claim dated far in the future with no record does not keep a dead member from prune", async () => {
    const { dir, roster, dead } = await world();
    await roster.join(member("dead", "lead", 11));
    dead.add(11);
    const future = new Date(Date.now() + 365 * 86_400_000).toISOString();
    writeFileSync(path.join(dir, "labels", "lead.json"), claimText("lead", "ghost", future));
    expect(await roster.prune()).toMatchObject({ ok: true, removed: ["dead"] });
  });

  it("a takeover of an unreadable claim that wins a displaced claim takes that over too, with its mail", async () => {
    const { dir, roster, dead } = await world();
    await roster.join(member("dead", "lead", 11));
    await roster.join(member("bob", "bob", 12));
    expect(await roster.send({ from: "bob", to: "lead", body: "for the lead" })).toMatchObject({
      ok: true,
    });
    dead.add(11);
    // A takeover moved dead's claim aside and lost; junk is at the key now.
    const labels = path.join(dir, "labels");
    const { renameSync } = await import("node:fs");
    renameSync(path.join(labels, "lead.json"), displacedFile(dir, "lead"));
    writeFileSync(path.join(labels, "lead.json"), "garbage");
    const joined = await roster.join(member("next", "lead", 13));
    expect(joined).toMatchObject({
      ok: true,
      took: { from: "dead", reason: "dead", forwarded: 1 },
    });
    expect(existsSync(displacedFile(dir, "lead"))).toBe(false);
    const inbox = await roster.receive("next");
    expect(inbox.ok && inbox.messages.map((each) => [each.body, each.forwardedFrom?.id])).toEqual([
      ["for the lead", "dead"],
    ]);
  });
});
