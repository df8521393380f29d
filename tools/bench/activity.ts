// Activity figures: how soon an engine's signal is what `muster status --json` shows (the signal
// recorded as a receiver records it, `reportSignal`, then the built CLI asked), how soon a change
// that needs the person is drawn on a real attached tmux client (`reportSignal` + `alertAbout`,
// the member's pane in a window the client does not show, the line read back from the client's
// screen), and what `muster status --line` (tmux runs it every few seconds) costs against a bare
// Node start and against plain `muster status`, on a team of 10.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { nodeFs, processFacts } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import { type AttachedClient, attachClient, startPrivateTmux } from "@muster/test-support";
import { alertAbout, reportSignal } from "@muster/wiring";
import { type BenchRow, compare, percentile, startWhy } from "../src/bench-kit.ts";

const MUSTER = path.resolve(
  import.meta.dirname,
  "..",
  "..",
  "packages",
  "cli",
  "dist",
  "muster.js",
);
const cli = (args: string[], env: NodeJS.ProcessEnv) =>
  execFileSync(process.execPath, [MUSTER, ...args], { env, encoding: "utf8" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function join(roster: Roster, id: string, seat?: Record<string, unknown>) {
  const joined = await roster.join({
    id,
    label: id,
    agent: "pi",
    pid: process.pid,
    watching: { armed: true, wake: false },
    liveness: "heartbeat",
    ...(seat ? { seat: seat as never } : {}),
  });
  if (!joined.ok) throw new Error(joined.error);
}

const signal = (roster: Roster, id: string, name: string) =>
  reportSignal(roster, id, { engine: "pi", signal: name, at: Date.now() });

/** Signal → the state in `muster status --json`, per run (the CLI's start is most of it). */
async function signalToStatus(roster: Roster, env: NodeJS.ProcessEnv, runs: number) {
  const times: number[] = [];
  for (let index = 0; index < runs + 2; index += 1) {
    const [name, state] = index % 2 ? ["agent-settled", "idle"] : ["turn-start", "working"];
    const started = performance.now();
    await signal(roster, "m0", name);
    const shown = JSON.parse(cli(["status", "--json"], env)) as {
      members: { label: string; activity: { state: string } }[];
    };
    const elapsed = performance.now() - started;
    if (shown.members.find((member) => member.label === "m0")?.activity.state !== state)
      throw new Error(`status --json did not show m0 ${state}`);
    if (index >= 2) times.push(elapsed);
  }
  return times;
}

export async function run(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(path.join(tmpdir(), "muster-bench-activity-"));
  const tmux = startPrivateTmux({ for: "bench", command: "sleep 3600" });
  let client: AttachedClient | undefined;
  try {
    const dir = path.join(scratch, "team");
    const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: processFacts });
    if (!opened.ok) throw new Error(opened.error);
    const roster = opened.roster;
    const env = { ...process.env, ...tmux.env, MUSTER_TEAM_DIR: dir, HOME: scratch };
    // The members' panes are in a second window; the client shows the first.
    tmux.tmux("new-window", "-d", "-t", "main", "sleep 3600");
    const format =
      "#{socket_path} #{pid} #{session_id} #{session_name} #{window_id} #{window_index} #{pane_id} #{pane_index}";
    const [server, serverPid, session, sessionName, window, windowIndex, pane, paneIndex] = tmux
      .tmux("display-message", "-p", "-t", "main:1", format)
      .trim()
      .split(" ");
    const seat = {
      server,
      serverPid: Number(serverPid),
      session,
      sessionName,
      window,
      windowIndex: Number(windowIndex),
      pane,
      paneIndex: Number(paneIndex),
    };
    for (let index = 0; index < 10; index += 1) await join(roster, `m${index}`);
    const screen = path.join(scratch, "client-screen");
    client = await attachClient(tmux, screen);

    const toStatus = await signalToStatus(roster, env, 21);
    const drawn = client.drawn;
    // One member per alert (an alert for the same member is debounced), each on a team of its
    // own: a team shows the person a few alerts a minute (core's ALERTS_PER_MINUTE), as it should.
    const alerts: number[] = [];
    const alertEnv = { ...env, MUSTER_ATTENTION: "message bell" };
    for (let index = 0; index < 15; index += 1) {
      const id = `a${index}`;
      const team = await openRoster({
        dir: path.join(scratch, `alert-team-${index}`),
        fs: nodeFs,
        clock: Date.now,
        processes: processFacts,
      });
      if (!team.ok) throw new Error(team.error);
      await join(team.roster, id, seat);
      await signal(team.roster, id, "turn-start");
      const started = performance.now();
      const outcome = await signal(team.roster, id, "ui-prompt-start");
      if (!outcome.attention) throw new Error("needs-you raised no attention");
      await alertAbout(team.roster, id, outcome.attention, { env: alertEnv, run: tmux.run });
      while (!drawn().includes(`muster: ${id} needs you`)) {
        if (performance.now() - started > 5_000) throw new Error(`no alert drawn for ${id}`);
        await sleep(1);
      }
      alerts.push(performance.now() - started);
    }

    const line = await compare(
      () => cli(["status", "--line"], env),
      () => execFileSync(process.execPath, ["-e", ""], { env }),
      { warmup: 3, runs: 21 },
    );
    // The same bundle without the team: status --line --help loads it and reads nothing.
    const lineLoad = await compare(
      () => cli(["status", "--line", "--help"], env),
      () => execFileSync(process.execPath, ["-e", ""], { env }),
      { warmup: 2, runs: 11 },
    );
    const plain = await compare(
      () => cli(["status", "--line"], env),
      () => cli(["status"], env),
      { warmup: 3, runs: 21 },
    );
    return [
      {
        name: "activity: signal → state in muster status --json, p50",
        medianMs: percentile(toStatus, 50),
        note: `p95 ${percentile(toStatus, 95).toFixed(1)} ms, ${toStatus.length} runs (one CLI start each)`,
      },
      {
        name: "activity: needs-you signal → alert drawn on an attached tmux client, p50",
        medianMs: percentile(alerts, 50),
        note: `p95 ${percentile(alerts, 95).toFixed(1)} ms, ${alerts.length} runs`,
      },
      {
        name: "muster status --line, team of 10",
        medianMs: line.figureMs,
        reference: { name: 'node -e ""', medianMs: line.referenceMs },
        target: {
          text: "≤ 1.5× bare Node",
          met: line.figureMs <= 1.5 * line.referenceMs,
          whyMissed: startWhy(lineLoad, line),
        },
      },
      {
        name: "muster status --line against plain muster status, team of 10",
        medianMs: plain.figureMs,
        reference: { name: "muster status", medianMs: plain.referenceMs },
      },
    ];
  } finally {
    client?.close();
    tmux.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}
