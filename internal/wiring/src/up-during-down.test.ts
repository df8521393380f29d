// `muster up` while a `muster down` of the member still runs (not killed: slow past its engine's
// exit, as on a loaded machine). Once the engine is gone, up must not start the member while the
// down is not done: the down then records the member as down over the record of the pane up just
// opened (and a stop removes that record, and the worktree the new engine started in). The down
// holds the label as a spawn does while it ends the member; up says `racing`. A private tmux
// server, a real roster; the down's tmux calls after the engine exited are held back 1.5 s.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processAlive, processStart } from "@muster/node";
import { eventually, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { seatByPane, type TmuxRunner } from "@muster/tmux";
import { afterAll, expect, it } from "vitest";
import { openTeam } from "./open-team.ts";
import { readSpawnRecord, writeSpawnRecord } from "./spawn-records.ts";
import { teamDown } from "./team-down.ts";
import { teamUp } from "./team-up.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-up-during-down-")));
let server: PrivateTmux | undefined;
afterAll(() => {
  server?.kill();
  rmSync(scratch, { recursive: true, force: true });
});

it("up while a down of the member still runs starts nothing: racing", async () => {
  const repo = path.join(scratch, "repo");
  const bin = path.join(scratch, "bin");
  mkdirSync(repo);
  mkdirSync(bin);
  execFileSync("git", ["init", "-q", repo]);
  writeFileSync(path.join(repo, "muster.toml"), '[[member]]\nlabel = "bob"\nengine = "pi"\n');
  writeFileSync(path.join(bin, "pi"), "#!/bin/sh\nexec sleep 600\n");
  chmodSync(path.join(bin, "pi"), 0o755);
  const env = { PATH: `${bin}:${process.env.PATH}`, HOME: scratch };
  server = startPrivateTmux({ command: "sleep 600", env });
  const tmux = server.tmux;
  const lead = tmux("display-message", "-p", "-t", "main", "#{pane_id}").trim();
  const seated = await seatByPane(server.run, lead, { name: server.name });
  if (!seated.ok) throw new Error(seated.error);
  // bob's engine: asked to quit (SIGTERM), it says so and exits 0.3 s later; its pane closes.
  const code = `process.on("SIGTERM", () => { setTimeout(() => process.exit(0), 300); }); setInterval(() => {}, 1000);`;
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
  const teamDir = path.join(scratch, "team");
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
  // The down's own runner: once bob's engine has exited, each call waits 1.5 s (a slow machine).
  const slow: TmuxRunner = async (args) => {
    if (processAlive(pid, start) === "dead")
      await new Promise((resolve) => setTimeout(resolve, 1500));
    return server!.run(args);
  };
  const down = teamDown({ cwd: repo, labels: ["bob"] }, { ...effects, run: slow });
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
