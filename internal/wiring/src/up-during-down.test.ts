// `muster up` while a `muster down` of the member still runs (not killed: slow past its engine's
// exit, as on a loaded machine). Once the engine is gone, up must not start the member while the
// down is not done: the down then records the member as down over the record of the pane up just
// opened (and a stop removes that record, and the worktree the new engine started in). The down
// holds the label as a spawn does while it ends the member; up says `racing`. A private tmux
// server, a real roster; the down's first tmux call after the engine exited is held back 1.5 s.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processAlive, processStart } from "@muster/node";
import { eventually, LONG_TESTS, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { seatByPane, type TmuxRunner } from "@muster/tmux";
import { afterAll, expect, it } from "vitest";
import { openTeam } from "./open-team.ts";
import { readSpawnRecord, writeSpawnRecord } from "./spawn-records.ts";
import { teamDown } from "./team-down.ts";
import { teamUp } from "./team-up.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-up-during-down-")));
const servers: PrivateTmux[] = [];
afterAll(() => {
  for (const server of servers) server.kill();
  rmSync(scratch, { recursive: true, force: true });
});

/** A repository declaring bob (pi), a private server with bob in a pane of its own, bob on the
 * roster and its spawn record; bob's engine exits `lingerMs` after it is asked to quit. */
async function setUp(lingerMs: number) {
  const home = mkdtempSync(path.join(scratch, "case-"));
  const repo = path.join(home, "repo");
  const bin = path.join(home, "bin");
  mkdirSync(repo);
  mkdirSync(bin);
  execFileSync("git", ["init", "-q", repo]);
  writeFileSync(path.join(repo, "muster.toml"), '[[member]]\nlabel = "bob"\nengine = "pi"\n');
  writeFileSync(path.join(bin, "pi"), "#!/bin/sh\nexec sleep 600\n");
  chmodSync(path.join(bin, "pi"), 0o755);
  const env = { PATH: `${bin}:${process.env.PATH}`, HOME: home };
  const server = startPrivateTmux({ command: "sleep 600", env });
  servers.push(server);
  const tmux = server.tmux;
  const lead = tmux("display-message", "-p", "-t", "main", "#{pane_id}").trim();
  const seated = await seatByPane(server.run, lead, { name: server.name });
  if (!seated.ok) throw new Error(seated.error);
  // bob's engine: asked to quit (SIGTERM), it says so and exits `lingerMs` later; its pane closes.
  const code = `process.on("SIGTERM", () => { setTimeout(() => process.exit(0), ${lingerMs}); }); setInterval(() => {}, 1000);`;
  const [pane, pidText] = tmux(
    "split-window",
    "-d",
    "-P",
    "-F",
    "#{pane_id} #{pane_pid}",
    `exec '${process.execPath}' -e '${code}'`,
  )
    .trim()
    .split(" ");
  const pid = Number(pidText);
  const start = await eventually(
    () => processStart(pid),
    (found) => found !== undefined,
    "bob's engine",
  );
  const serverPid = Number(tmux("display-message", "-p", "#{pid}").trim());
  const teamDir = path.join(home, "team");
  const opened = await openTeam({ dir: teamDir });
  if (!opened.ok) throw new Error(opened.error);
  const { roster } = opened;
  const joined = await roster.join({
    id: "019afc3e-4a5b-7c6d-8e9f-0a1b2c3d4e5f",
    label: "bob",
    agent: "pi",
    pid,
    pidStart: start,
    watching: { armed: true, wake: true },
    liveness: "process",
  });
  expect(joined.ok).toBe(true);
  await writeSpawnRecord(
    { dir: teamDir },
    {
      v: 1,
      label: "bob",
      engine: "pi",
      server: server.socket,
      serverPid,
      pane: pane!,
      pid,
      start: start!,
      cwd: repo,
      by: { pane: lead },
      at: new Date().toISOString(),
    },
  );
  const effects = { roster, teamDir, run: server.run, target: { name: server.name }, env };
  // A runner whose first call after bob's engine exited waits `ms` (a slow machine).
  const slowOnce = (ms: number): TmuxRunner => {
    let slowed = false;
    return async (args) => {
      if (!slowed && processAlive(pid, start) === "dead") {
        slowed = true;
        await new Promise((resolve) => setTimeout(resolve, ms));
      }
      return server.run(args);
    };
  };
  return {
    repo,
    tmux,
    lead,
    seated,
    pane: pane!,
    pid,
    start: start!,
    roster,
    teamDir,
    effects,
    slowOnce,
  };
}

it("up while a down of the member still runs starts nothing: racing", async () => {
  const { repo, tmux, lead, seated, pane, pid, start, teamDir, effects, slowOnce } =
    await setUp(300);
  const down = teamDown({ cwd: repo, labels: ["bob"] }, { ...effects, run: slowOnce(1500) });
  // Once bob's engine has exited, while the down is still at work: up.
  await eventually(
    () => processAlive(pid, start),
    (fact) => fact === "dead",
    "bob's engine gone",
  );
  const up = await teamUp(
    {
      cwd: repo,
      labels: ["bob"],
      here: { seat: { ok: true, seat: seated.seat }, id: "lead-id" },
      timeoutMs: 1000,
    },
    effects,
  );
  const done = await down;
  expect(done.ok && done.members[0]).toMatchObject({ label: "bob", outcome: "down" });
  const bob = up.ok ? up.members[0] : undefined;
  // No pane opened for it: had one been, the down's record (bob down, in its old pane) would now
  // stand over it, and muster would know nothing of the member running there.
  const record = await readSpawnRecord({ dir: teamDir }, "bob");
  expect(bob).toMatchObject({ label: "bob", outcome: "racing" });
  expect(record).toMatchObject({ pane, down: expect.any(String) });
  const panes = tmux("list-panes", "-a", "-F", "#{pane_id}").trim().split("\n");
  expect(panes).toEqual([lead]);
}, 30_000);

// The other order: up began while bob's engine was still quitting (it read bob's record then, as
// the down had marked it), and the down is done before up goes on (up's first tmux call after the
// engine exited is held back 1 s). Up must bring bob back from the record the down left, with
// the id bob had: the mail that waited there goes to the id bob comes back under (a resumed
// Claude Code's is new). It waits up to 15 s for the engine to watch its mailbox, as up does.
it.skipIf(!LONG_TESTS)(
  "up that waited on a down now done brings the member back with the mail that waited",
  async () => {
    const { repo, tmux, lead, seated, pane, roster, teamDir, effects, slowOnce } =
      await setUp(1000);
    const OLD = "019afc3e-4a5b-7c6d-8e9f-0a1b2c3d4e5f";
    const NEW = "019afc3e-4a5b-7c6d-8e9f-0a1b2c3d4e60";
    const LEAD = "019afc3e-4a5b-7c6d-8e9f-0a1b2c3d4e61";
    await roster.join({
      id: LEAD,
      label: "lead",
      agent: "pi",
      pid: process.pid,
      pidStart: processStart(process.pid),
      watching: { armed: true, wake: true },
      liveness: "process",
    });
    const sent = await roster.send({ from: LEAD, to: "bob", body: "for bob" });
    expect(sent).toMatchObject({ ok: true });
    const down = teamDown({ cwd: repo, labels: ["bob"] }, effects);
    await eventually(
      () => readSpawnRecord({ dir: teamDir }, "bob"),
      (record) => record?.ending !== undefined,
      "the down's mark",
    );
    const upping = teamUp(
      {
        cwd: repo,
        labels: ["bob"],
        here: { seat: { ok: true, seat: seated.seat }, id: "lead-id" },
        timeoutMs: 3000,
      },
      { ...effects, run: slowOnce(1000) },
    );
    // bob's new pane: its engine joins under a new id.
    const opened = await eventually(
      () =>
        tmux("list-panes", "-a", "-F", "#{pane_id} #{pane_pid}")
          .trim()
          .split("\n")
          .map((line) => line.split(" "))
          .find(([id]) => id !== lead && id !== pane),
      (found) => found !== undefined,
      "bob's new pane",
      { attempts: 200, intervalMs: 50 },
    );
    const pid = Number(opened![1]);
    const joined = await roster.join({
      id: NEW,
      label: "bob",
      agent: "pi",
      pid,
      pidStart: processStart(pid),
      watching: { armed: true, wake: true },
      liveness: "process",
    });
    expect(joined.ok).toBe(true);
    const [up, done] = await Promise.all([upping, down]);
    expect(done.ok && done.members[0]).toMatchObject({ label: "bob", outcome: "down" });
    expect(up.ok && up.members[0]).toMatchObject({ label: "bob", id: NEW });
    const inbox = await roster.receive(NEW);
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual(["for bob"]);
    expect((await roster.receive(OLD)).ok && (await roster.receive(OLD))).toMatchObject({
      messages: [],
    });
  },
  60_000,
);
