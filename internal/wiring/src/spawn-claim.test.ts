// Two spawns of one label at once, as two team_spawn calls in one server make them: the label is
// claimed before a pane opens, so one opens a pane and the other is refused, naming the holder,
// with nothing opened. On a private tmux server, with a real roster; the command is a plain sleep
// (no engine needed: the race is over before any engine would start).
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processStart } from "@muster/node";
import type { Roster } from "@muster/roster";
import { type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { type Seat, seatByPane } from "@muster/tmux";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTeam, spawnAgent } from "./index.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-spawn-claim-")));
let server: PrivateTmux;
let seat: Seat;
let roster: Roster;
const teamDir = path.join(scratch, "team");

beforeAll(async () => {
  server = startPrivateTmux({ command: "sleep 600" });
  const pane = server.tmux("display-message", "-p", "-t", "main", "#{pane_id}").trim();
  const seated = await seatByPane(server.run, pane, { name: server.name });
  if (!seated.ok) throw new Error(seated.error);
  seat = seated.seat;
  const opened = await openTeam({ dir: teamDir });
  if (!opened.ok) throw new Error(opened.error);
  roster = opened.roster;
});
afterAll(() => {
  server.kill();
  rmSync(scratch, { recursive: true, force: true });
});

const panes = () => server.tmux("list-panes", "-a", "-F", "#{pane_id}").trim().split("\n");

const spawnDup = (label: string) =>
  spawnAgent(
    { engine: "pi", label, cwd: scratch, timeoutMs: 300, command: ["sleep", "600"] },
    { seat: { ok: true, seat }, id: "lead-id" },
    { roster, teamDir, run: server.run },
  );

describe("one label, spawned twice at once", () => {
  it("opens one pane: the other spawn is refused with the holder, and opens nothing", async () => {
    const before = panes();
    const answers = await Promise.all([spawnDup("dup"), spawnDup("dup"), spawnDup("dup")]);
    const opened = answers.filter((answer) => answer.ok);
    const refused = answers.filter((answer) => !answer.ok);
    expect(opened).toHaveLength(1);
    expect(panes()).toHaveLength(before.length + 1);
    for (const answer of refused) {
      expect(answer).toMatchObject({ ok: false });
      if (answer.ok) continue;
      // Refused while the first runs (naming it), or just after it recorded its pane.
      expect(["label-spawning", "label-spawned"]).toContain(answer.reason);
      if (answer.reason === "label-spawning")
        expect(answer.error).toContain(`from pane ${seat.pane}, pid ${process.pid}`);
    }
  });

  it("a claim left by a spawner that died frees the label at once", async () => {
    // A spawn killed mid-way left its claim: its pid is gone (this pid, with another start time).
    const claim = {
      v: 1,
      key: "orphan",
      holder: "spawn-1-dead",
      at: new Date().toISOString(),
      token: "t0",
      data: { pid: process.pid, start: "0", pane: "%99" },
    };
    writeFileSync(path.join(teamDir, "spawns", "orphan.json"), JSON.stringify(claim), {
      mode: 0o600,
    });
    const answer = await spawnDup("orphan");
    expect(answer).toMatchObject({ ok: true, state: "opened" });
  });

  it("a claim held by a live spawn refuses, and a finished spawn leaves no claim behind", async () => {
    const claim = {
      v: 1,
      key: "busy",
      holder: "spawn-2-live",
      at: new Date().toISOString(),
      token: "t1",
      // Another spawn, alive: this very process, as its start time proves.
      data: { pid: process.pid, start: processStart(process.pid), pane: "%7", label: "lead" },
    };
    writeFileSync(path.join(teamDir, "spawns", "busy.json"), JSON.stringify(claim), {
      mode: 0o600,
    });
    expect(await spawnDup("busy")).toMatchObject({
      ok: false,
      reason: "label-spawning",
      error: `muster is spawning "busy" right now from pane %7 (lead), pid ${process.pid}: nothing opened`,
    });
    expect(await roster.readClaim("spawns", "dup")).toBeUndefined();
    expect(await roster.readClaim("spawns", "orphan")).toBeUndefined();
  });
});
