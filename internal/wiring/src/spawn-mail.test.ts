// The mail settings a spawned member's pane starts with, for every engine spawn supports and
// whatever door spawns it (they all call spawnAgent): it wakes for its mail unless asked to be
// quiet, and the spawning shell's own setting and wake rate reach it over the tmux server's. On a
// private tmux server whose global environment says MUSTER_MAIL=off, with a real roster; the
// command stands in for the engine and writes the environment it was started with.
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Roster } from "@muster/roster";
import { eventually, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { type Seat, seatByPane } from "@muster/tmux";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTeam, spawnAgent } from "./index.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-spawn-mail-")));
let server: PrivateTmux;
let seat: Seat;
let roster: Roster;
const teamDir = path.join(scratch, "team");

beforeAll(async () => {
  // The server's own environment is not the spawning shell's: a spawn says what its member's is.
  server = startPrivateTmux({
    command: "sleep 600",
    env: { MUSTER_MAIL: "off", MUSTER_WAKE: undefined, MUSTER_WAKE_PER_MINUTE: "9" },
  });
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

let spawns = 0;

/** Spawn `engine` (a shell standing in for it) and read the mail settings its pane started with. */
async function spawnWith(engine: string, env: NodeJS.ProcessEnv, quiet?: boolean) {
  spawns += 1;
  const file = path.join(scratch, `env-${spawns}`);
  const spawned = await spawnAgent(
    {
      engine,
      label: `m${spawns}`,
      cwd: scratch,
      timeoutMs: 300,
      // A window each: nine splits of one pane leave no room.
      window: true,
      quiet,
      command: ["sh", "-c", `env > ${file}.tmp && mv ${file}.tmp ${file}; exec sleep 600`],
    },
    { seat: { ok: true, seat }, id: "lead-id" },
    { roster, teamDir, run: server.run, env },
  );
  if (!spawned.ok) return { spawned, settings: undefined };
  const text = await eventually(
    () => (existsSync(file) ? readFileSync(file, "utf8") : ""),
    (read) => read !== "",
    "the pane's environment",
  );
  const settings = Object.fromEntries(
    text
      .split("\n")
      .filter((line) => /^MUSTER_(MAIL|WAKE|WAKE_PER_MINUTE)=/.test(line))
      .map((line) => line.split(/=(.*)/s, 2) as [string, string]),
  );
  return { spawned, settings };
}

describe("a spawned member's mail", () => {
  it.each(["pi", "codex", "claude"])("%s wakes for its mail by default", async (engine) => {
    const { spawned, settings } = await spawnWith(engine, {});
    expect(spawned).toMatchObject({ ok: true, mail: "wakes" });
    expect(settings).toEqual({ MUSTER_MAIL: "wakes", MUSTER_WAKE_PER_MINUTE: "9" });
  });

  it.each(["pi", "codex", "claude"])("%s with quiet: its mail does not wake it", async (engine) => {
    const { spawned, settings } = await spawnWith(engine, { MUSTER_MAIL: "wakes" }, true);
    expect(spawned).toMatchObject({ ok: true, mail: "quiet" });
    expect(settings?.MUSTER_MAIL).toBe("quiet");
  });

  it("the spawning shell's mail setting and wake rate reach the pane", async () => {
    const { spawned, settings } = await spawnWith("codex", {
      MUSTER_WAKE: "0",
      MUSTER_WAKE_PER_MINUTE: "2",
    });
    expect(spawned).toMatchObject({ ok: true, mail: "quiet" });
    expect(settings).toEqual({ MUSTER_MAIL: "quiet", MUSTER_WAKE_PER_MINUTE: "2" });
    const off = await spawnWith("claude", { MUSTER_MAIL: "off" });
    expect(off.spawned).toMatchObject({ ok: true, mail: "off" });
    expect(off.settings?.MUSTER_MAIL).toBe("off");
  });

  it("a shell setting no door knows is refused, nothing opened", async () => {
    const before = readdirSync(path.join(teamDir, "spawned")).length;
    const { spawned } = await spawnWith("pi", { MUSTER_MAIL: "loud" });
    expect(spawned).toEqual({
      ok: false,
      reason: "bad-mail-mode",
      error: 'MUSTER_MAIL is "loud"',
      fix: "set MUSTER_MAIL to off, quiet or wakes",
    });
    expect(readdirSync(path.join(teamDir, "spawned"))).toHaveLength(before);
  });
});
