// `muster migrate`, the built binary, on a real nats-server: a team's folder moved to NATS and back
// loses nothing (its records, claims, board, unread and read mail and receipts read back equal);
// a dry run writes nothing; it refuses with no server configured, while a member is live, and
// into a destination that holds a team, each in one line with the fix.
import { existsSync } from "node:fs";
import { nodeFs } from "@muster/node";
import { openFolderStore, type RosterStore } from "@muster/roster";
import { LONG_TESTS, NATS_SERVER_MISSING } from "@muster/test-support";
import { chooseStore, closeTeams, readContents, type StoreContents } from "@muster/wiring";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { clone, memberShell, type NatsTeam, startNatsTeam } from "../test/nats-team.ts";
import { musterKit } from "../test/run.ts";
import { check, loadSchemas } from "../test/schema-check.ts";

const { scratch, muster } = musterKit("muster-cli-migrate-");
const repo = clone(scratch, "repo");
let team: NatsTeam;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  team = await startNatsTeam(muster, scratch, repo, ["alice"]);
}, 60_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await closeTeams();
  await team?.server.stop();
});

/** Both of the team's stores, opened directly, to read what each holds. */
async function stores(): Promise<{ folder: RosterStore; nats: RosterStore }> {
  const chosen = await chooseStore({
    cwd: repo,
    env: { ...process.env, HOME: scratch, ...team.env("alice") },
  });
  if (!chosen.ok || chosen.store !== "nats") throw new Error("not on NATS");
  const folder = await openFolderStore({ dir: chosen.folder.dir, fs: nodeFs, clock: Date.now });
  if (!folder.ok) throw new Error(folder.error);
  const { openNatsStore } = await import("@muster/nats");
  const nats = await openNatsStore(chosen.settings, chosen.team);
  if (!nats.ok) throw new Error(nats.error);
  closers.push(nats.close);
  return { folder: folder.store, nats: nats.store };
}

/** What a store holds, in one order, without what only says where it is kept. */
const held = (contents: StoreContents) => ({
  spaces: contents.spaces.map((entry) => `${entry.space}/${entry.key} ${entry.text}`).sort(),
  mail: contents.mailboxes
    .map((box) => ({
      member: box.member,
      unread: box.unread.map((entry) => `${entry.id} ${entry.text}`).sort(),
      read: box.read.map((entry) => `${entry.id} ${entry.text}`).sort(),
    }))
    .sort((one, other) => one.member.localeCompare(other.member)),
  receipts: contents.receipts
    .map((receipt) => ({
      message: receipt.message,
      marks: receipt.marks.map((mark) => JSON.stringify(mark)).sort(),
    }))
    .sort((one, other) => one.message.localeCompare(other.message)),
});

// A real server and the whole team moved both ways: `pnpm test:long` (MUSTER_LONG_TESTS), which CI
// runs; pnpm test keeps the NATS store's conformance suite (packages/nats).
describe.skipIf(NATS_SERVER_MISSING || !LONG_TESTS)("muster migrate", () => {
  test("folder → NATS → folder loses nothing; refusals say what to do", async () => {
    // A team on its folder: two members gone (their shells ended), mail read and unread, a
    // claimed card and a lease.
    const alice = memberShell({ cwd: repo, home: scratch });
    const bob = memberShell({ cwd: repo, home: scratch });
    await alice.run(["join", "alice", "--id", "a1"]);
    await bob.run(["join", "bob", "--id", "b1"]);
    await bob.run(["send", "alice", "first", "--id", "b1"]);
    await alice.run(["inbox", "--id", "a1"]);
    await bob.run(["send", "alice", "second", "--id", "b1"]);
    await alice.run(["board", "add", "move", "the", "team", "--id", "a1"]);
    await alice.run(["board", "claim", "c1", "--id", "a1"]);
    await bob.run(["lease", "src/**", "--reason", "moving", "--id", "b1"]);
    await Promise.all([alice.kill(), bob.kill()]);
    const nats = team.env("alice");

    const nowhere = await muster(["migrate", "--to", "nats", "--json"], { cwd: repo });
    expect(nowhere.status).toBe(1);
    expect(nowhere.stderr).toMatch(/no NATS server configured.*set MUSTER_NATS/);
    expect((await muster(["migrate"], { cwd: repo })).status).toBe(2);

    const { folder, nats: onNats } = await stores();
    const before = await readContents(folder);
    expect(before.mailboxes.find((box) => box.member === "a1")).toMatchObject({
      unread: [{}],
      read: [{}],
    });
    expect(before.spaces.map((entry) => entry.space)).toEqual(
      expect.arrayContaining(["sessions", "labels", "leases", "board"]),
    );

    // A member live on the team stops it: it would write behind the copy's back.
    const live = await muster(["join", "dave", "--id", "d1"], { cwd: repo });
    expect(live.status).toBe(0);
    const refused = await muster(["migrate", "--to", "nats", "--json"], { cwd: repo, env: nats });
    expect(refused.status).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      ok: false,
      reason: "members-live",
      live: ["dave"],
    });
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("have them leave");
    expect((await muster(["leave", "--id", "d1"], { cwd: repo })).status).toBe(0);
    const beforeMove = held(await readContents(folder));

    const dry = await muster(["migrate", "--to", "nats", "--dry-run", "--json"], {
      cwd: repo,
      env: nats,
    });
    const plan = JSON.parse(dry.stdout);
    expect(check(loadSchemas(), "migrate.schema.json", plan)).toEqual([]);
    expect(plan).toMatchObject({ ok: true, dryRun: true, moved: { unread: 1, read: 1 } });
    expect(held(await readContents(onNats)).spaces).toEqual([]);

    const moved = await muster(["migrate", "--to", "nats", "--json"], { cwd: repo, env: nats });
    const report = JSON.parse(moved.stdout);
    expect(check(loadSchemas(), "migrate.schema.json", report)).toEqual([]);
    expect(report).toMatchObject({ ok: true, dryRun: false, moved: plan.moved });
    expect(existsSync(report.keptAt)).toBe(true);
    expect(held(await readContents(onNats))).toEqual(beforeMove);
    // The team works on NATS: alice's unread mail is there.
    const inbox = await muster(["inbox", "--id", "a1", "--peek", "--json"], {
      cwd: repo,
      env: nats,
    });
    expect(JSON.parse(inbox.stdout).messages).toMatchObject([{ body: "second" }]);

    // (The peek marked the mail delivered: that mark moves back too.)
    const beforeBack = held(await readContents(onNats));
    const back = await muster(["migrate", "--to", "folder"], { cwd: repo, env: nats });
    expect(back.status).toBe(0);
    expect(back.stdout).toContain("now unset MUSTER_NATS");
    const { folder: again } = await stores();
    expect(held(await readContents(again))).toEqual(beforeBack);
    expect(held(await readContents(onNats))).toEqual({ spaces: [], mail: [], receipts: [] });

    // Again: nothing left to move, nothing written (a rerun is idempotent).
    const rerun = await muster(["migrate", "--to", "folder"], { cwd: repo, env: nats });
    expect(rerun.status).toBe(0);
    expect(rerun.stdout).toContain("nothing left to move");
    expect(held(await readContents(again))).toEqual(beforeBack);
    // Into a destination that holds another team: refused, nothing written.
    await onNats.put("board", "c9", '{"planted":true}\n');
    const full = await muster(["migrate", "--to", "folder"], { cwd: repo, env: nats });
    expect(full.status).toBe(1);
    expect(full.stderr).toMatch(/already holds a team.*move the folder aside/);
    // Some thirty CLI starts and two whole migrations: CI's three workers on two cores take longer
    // than the package's 30 s.
  }, 90_000);
});
