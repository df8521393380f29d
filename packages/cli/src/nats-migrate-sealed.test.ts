// `muster migrate --to folder` run by one person, on a team of two on a real nats-server: the
// other person's mail is sealed to their key, so this person's muster cannot open it, nor carry it.
// It must not vanish with the move: it stays on NATS, readable by its recipient, and the report
// says what was not carried and where it is — never a smaller team without a word.
import { NATS_SERVER_MISSING } from "@muster/test-support";
import { chooseStore, closeTeams } from "@muster/wiring";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { clone, type NatsTeam, startNatsTeam } from "../test/nats-team.ts";
import { musterKit } from "../test/run.ts";
import { check, loadSchemas } from "../test/schema-check.ts";

const { scratch, muster } = musterKit("muster-cli-migrate-sealed-");
const repo = clone(scratch, "repo");
let team: NatsTeam;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  team = await startNatsTeam(muster, scratch, repo, ["alice", "bob"]);
}, 60_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await closeTeams();
  await team?.server.stop();
});

/** The NATS store as `person` opens it, with their own seed. */
async function natsAs(person: string) {
  const chosen = await chooseStore({
    cwd: repo,
    env: { ...process.env, HOME: scratch, ...team.env(person) },
  });
  if (!chosen.ok || chosen.store !== "nats") throw new Error("not on NATS");
  const { openNatsStore } = await import("@muster/nats");
  const opened = await openNatsStore(chosen.settings, chosen.team);
  if (!opened.ok) throw new Error(opened.error);
  closers.push(opened.close);
  return opened.store;
}

const message = (id: string, body: string) =>
  `${JSON.stringify({
    v: 1,
    id,
    from: { id: "a1", label: "alice" },
    to: "bob",
    body,
    urgent: false,
    hops: 0,
    sentAt: new Date().toISOString(),
  })}\n`;

describe.skipIf(NATS_SERVER_MISSING)("muster migrate --to folder, by one of two people", () => {
  test("keeps the other's sealed mail on NATS, for them, and says so", async () => {
    const alice = await natsAs("alice");
    const bob = await natsAs("bob");
    await alice.mail.ensure("a1");
    await bob.mail.ensure("b1");
    await alice.mail.deliver("b1", "m-1", message("m-1", "unread for bob"));
    await alice.mail.deliver("b1", "m-2", message("m-2", "read by bob"));
    expect(await bob.mail.ack("b1", ["m-2"])).toMatchObject({ acked: ["m-2"] });
    await bob.mail.deliver("a1", "m-3", message("m-3", "for alice").replace('"a1"', '"b1"'));

    const run = await muster(["migrate", "--to", "folder", "--json"], {
      cwd: repo,
      env: team.env("alice"),
    });
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ ok: true });
    expect(check(loadSchemas(), "migrate.schema.json", report)).toEqual([]);
    // Alice's own mail moved; bob's is named as not carried, and where it stays.
    expect(report.moved).toMatchObject({ unread: 1 });
    expect(report.sealed).toEqual(["mail/b1/m-1.json", "mail/b1/m-2.json"]);
    expect(report.next).toMatch(/2 messages sealed to another member's key \(b1\).* kept on NATS/);
    // Bob still reads his mail on NATS, unread and read as they were.
    const unread = await bob.mail.unread("b1");
    expect(unread.messages.map((entry) => entry.id)).toEqual(["m-1"]);
    expect((await bob.mail.read("b1")).messages.map((entry) => entry.id)).toEqual(["m-2"]);
    // The text output says it too.
    const again = await muster(["migrate", "--to", "folder", "--dry-run"], {
      cwd: repo,
      env: team.env("alice"),
    });
    expect(again.stdout).toMatch(
      /not moved \(sealed to another member's key\): mail\/b1\/m-1\.json/,
    );
  }, 60_000);
});
