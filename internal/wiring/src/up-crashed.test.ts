// `muster up` after a member crashed: its engine died (SIGKILL) without a stop or a down, so the
// roster keeps its record, proven dead (`crashed` in every door, which says `muster up <label>
// brings it back`), and its pane stays, kept dead (spawned panes keep their last words). A record
// proven dead holds its label for no one (the roster's join takes it over), and a pane kept dead
// runs nothing: `up` must bring the member back, not call it live. The same for one whose engine
// failed at start and never joined: up's own fix for it is "muster up <label> again". A private
// tmux server, a real roster; the engine's place is taken by a process that never joins, so the
// member comes back as `failed` (did not join in time) in a new pane, the dead one closed.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { holderOf } from "@muster/core";
import { processStart } from "@muster/node";
import { eventually, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { seatByPane } from "@muster/tmux";
import { afterAll, expect, it } from "vitest";
import { openTeam } from "./open-team.ts";
import { writeSpawnRecord } from "./spawn-records.ts";
import { teamUp } from "./team-up.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-up-crashed-")));
const servers: PrivateTmux[] = [];
afterAll(() => {
  for (const server of servers) server.kill();
  rmSync(scratch, { recursive: true, force: true });
});

// Joined, then crashed; or never joined: its engine failed at start (no model, no key), and up said
// "look at pane %N, then muster up bob again".
it.each([
  ["a member that crashed", true],
  ["a member whose engine failed at start", false],
])(
  "%s in a pane kept dead is brought back by up, not called live",
  async (_, joins) => {
    const home = mkdtempSync(path.join(scratch, "case-"));
    const repo = path.join(home, "repo");
    const bin = path.join(home, "bin");
    mkdirSync(repo);
    mkdirSync(bin);
    execFileSync("git", ["init", "-q", repo]);
    writeFileSync(path.join(repo, "muster.toml"), '[[member]]\nlabel = "bob"\nengine = "pi"\n');
    // The engine `up` starts: a process that never joins (the test reads where it came back).
    writeFileSync(path.join(bin, "pi"), "#!/bin/sh\nexec sleep 600\n");
    chmodSync(path.join(bin, "pi"), 0o755);
    const env = { PATH: `${bin}:${process.env.PATH}`, HOME: home };
    const server = startPrivateTmux({ command: "sleep 600", env });
    servers.push(server);
    const tmux = server.tmux;
    const lead = tmux("display-message", "-p", "-t", "main", "#{pane_id}").trim();
    const seated = await seatByPane(server.run, lead, { name: server.name });
    if (!seated.ok) throw new Error(seated.error);
    // bob's pane as a spawn leaves it: kept when its program fails.
    const [pane, pidText] = tmux(
      "split-window",
      "-d",
      "-P",
      "-F",
      "#{pane_id} #{pane_pid}",
      "sleep 600",
    )
      .trim()
      .split(" ");
    tmux("set-option", "-p", "-t", pane!, "remain-on-exit", "failed");
    const pid = Number(pidText);
    const start = processStart(pid)!;
    const serverPid = Number(tmux("display-message", "-p", "#{pid}").trim());
    const teamDir = path.join(home, "team");
    const opened = await openTeam({ dir: teamDir });
    if (!opened.ok) throw new Error(opened.error);
    const { roster } = opened;
    const id = "019afc3e-4a5b-7c6d-8e9f-0a1b2c3d4e5f";
    if (joins) {
      const joined = await roster.join({
        id,
        label: "bob",
        agent: "pi",
        pid,
        pidStart: start,
        watching: { armed: true, wake: true },
        liveness: "process",
      });
      expect(joined.ok).toBe(true);
    }
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
        start,
        cwd: repo,
        by: { pane: lead },
        at: new Date().toISOString(),
      },
    );

    // It crashes: killed, no stop, no down. Its pane stays, dead; the roster proves it dead.
    process.kill(pid, "SIGKILL");
    const panes = () =>
      tmux("list-panes", "-a", "-F", "#{pane_id} #{pane_dead}").trim().split("\n");
    await eventually(panes, (listed) => listed.includes(`${pane} 1`), "bob's pane kept dead");
    const read = await roster.read();
    const crashed = read.ok ? holderOf(read.members, "bob") : undefined;
    if (joins) expect(crashed).toMatchObject({ id, state: "gone", reason: "process-dead" });
    else expect(crashed).toBeUndefined();

    const up = await teamUp(
      {
        cwd: repo,
        labels: ["bob"],
        here: { seat: { ok: true, seat: seated.seat }, id: "lead-id" },
        timeoutMs: 1000,
      },
      { roster, teamDir, run: server.run, target: { name: server.name }, env },
    );
    expect(up.ok).toBe(true);
    const bob = up.ok ? up.members[0] : undefined;
    // Started again (it never joins here, so it failed to join in time), in a pane of its own.
    expect(bob).toMatchObject({ label: "bob", outcome: "failed" });
    expect(bob?.pane).toBeDefined();
    expect(bob?.pane).not.toBe(pane);
    // The dead pane closed as a stop or down would have; the new one runs.
    expect(panes().some((line) => line.startsWith(`${pane} `))).toBe(false);
    expect(panes()).toContain(`${bob?.pane} 0`);
  },
  30_000,
);
