// `muster go` on a real private tmux server with a real client attached (`script`): it takes the
// person only to a seat on this host whose pane holds the member's process. A record from another
// host, or one naming a pane its process does not run in, is not followed: the client stays put.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processStart } from "@muster/node";
import { attachClient, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterAll, describe, expect, it } from "vitest";
import { musterKit } from "../test/run.js";

const { scratch, newTeam, muster } = musterKit("muster-cli-go-");
const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

async function server() {
  const tmux: PrivateTmux = startPrivateTmux({ command: "sleep 600" });
  cleanups.push(() => tmux.kill());
  const screen = path.join(mkdtempSync(path.join(tmpdir(), "muster-go-screen-")), "screen");
  cleanups.push(() => rmSync(path.dirname(screen), { recursive: true, force: true }));
  const client = await attachClient(tmux, screen);
  const end = () => {
    client.close();
    tmux.kill();
  };
  const [pane, panePid, session, window] = tmux
    .tmux(
      "display-message",
      "-p",
      "-t",
      "main:0",
      // Spaces, not tabs: tmux 3.3a under a C locale (CI's bare environment) prints a tab as "_".
      "#{pane_id} #{pane_pid} #{session_id} #{window_id}",
    )
    .trim()
    .split(" ") as [string, string, string, string];
  // Another window, shown to the client: going to the member's pane changes what it shows.
  tmux.tmux("new-window", "-t", "main", "sleep 600");
  const shown = () => tmux.tmux("display-message", "-p", "#{pane_id}").trim();
  const other = shown();
  expect(other).not.toBe(pane);
  const seat = {
    server: tmux.socket,
    serverPid: Number(tmux.tmux("display-message", "-p", "#{pid}").trim()),
    session,
    sessionName: "main",
    window,
    windowIndex: 0,
    pane,
    paneIndex: 0,
  };
  return { tmux, pane, panePid: Number(panePid), other, shown, seat, end };
}

async function member(dir: string, label: string, pid: number, seat: object) {
  const roster = await openTestTeam(dir);
  const joined = await roster.join({
    id: `id-${label}`,
    label,
    agent: "pi",
    pid,
    pidStart: processStart(pid),
    seat: seat as never,
    watching: { armed: true, wake: false },
    liveness: "heartbeat",
  });
  // A refusal says why (a join under load once failed here with no word of its reason).
  expect(joined.ok ? "joined" : `${joined.reason}: ${joined.error}`).toBe("joined");
  return path.join(dir, "sessions", `id-${label}.json`);
}

const plant = (file: string, change: Record<string, unknown>) =>
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), ...change }));

describe("muster go follows only a proven seat", () => {
  it("goes to a member whose process runs in the pane; not to another host's, nor to a pane it does not run in", async () => {
    const { tmux, pane, panePid, other, shown, seat, end } = await server();
    try {
      const dir = newTeam();
      const go = (label: string) =>
        muster(["go", label, "-S", tmux.socket], { env: { MUSTER_TEAM_DIR: dir } });

      // Another host's record naming this server's pane (pids and socket paths repeat across hosts).
      const far = await member(dir, "far", panePid, seat);
      plant(far, { place: "boot 00000000-0000-0000-0000-000000000000 pid:[4026531836]" });
      const refusedFar = await go("far");
      expect(refusedFar.status).toBe(1);
      expect(refusedFar.stderr).toMatch(/^muster: far's seat is on another host/);
      expect(shown()).toBe(other);

      // A record on this host naming a pane its process does not run in (this test's own process).
      await member(dir, "liar", process.pid, seat);
      const refusedLiar = await go("liar");
      expect(refusedLiar.status).toBe(1);
      expect(refusedLiar.stderr).toMatch(
        new RegExp(`^muster: pane ${pane} does not hold liar's process`),
      );
      expect(refusedLiar.stderr.trim().split("\n")).toHaveLength(1);
      expect(shown()).toBe(other);

      // The member whose process is the pane's: the client is taken there.
      await member(dir, "real", panePid, seat);
      const went = await go("real");
      expect(went).toMatchObject({ status: 0, stdout: `real: pane ${pane}\n` });
      expect(shown()).toBe(pane);
    } finally {
      end();
    }
  });
});
