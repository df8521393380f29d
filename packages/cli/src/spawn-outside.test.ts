// `muster spawn` from a plain terminal (no $TMUX) that names a running tmux server with -L: with
// --window it opens the member in a new window of that server; without, the refusal says what
// helps (--window, or a pane of that server), never "pass -L/-S" to a caller who passed it.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type PrivateTmux, startPrivateTmux, tmuxEnv } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MUSTER } from "../test/run.js";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-spawn-outside-")));
const home = path.join(scratch, "home");
const repo = path.join(scratch, "repo");
const team = path.join(scratch, "team");
let server: PrivateTmux;

type Run = { status: number | null; stdout: string; stderr: string };

/** Run muster from this test process, as from a plain terminal: no $TMUX, no pane above it. */
function fromTerminal(args: string[], socket: string[] = ["-L", server.name]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MUSTER, ...args, ...socket], {
      cwd: repo,
      env: tmuxEnv({ HOME: home, MUSTER_TEAM_DIR: team }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const windows = () =>
  server
    .tmux("list-panes", "-a", "-F", "#{pane_id} #{window_id} #{window_panes} #{session_name}")
    .trim()
    .split("\n")
    .map((line) => line.split(" "));

beforeAll(() => {
  for (const folder of [home, repo]) mkdirSync(folder, { recursive: true });
  server = startPrivateTmux({ command: "sleep 600", env: { HOME: home, MUSTER_TEAM_DIR: team } });
});

afterAll(() => {
  server.kill();
  rmSync(scratch, { recursive: true, force: true });
});

describe("muster spawn from a plain terminal, naming a server with -L", () => {
  it("--window opens the member in a new window of that server", async () => {
    const before = windows();
    // The command starts no pi: the wait ends at its time limit, after the window opened.
    const run = await fromTerminal([
      "spawn",
      "pi",
      "--label",
      "outside",
      "--window",
      "--timeout",
      "1",
      "--command",
      "sleep 600",
      "--json",
    ]);
    const document = JSON.parse(run.stdout);
    expect(document).toMatchObject({ label: "outside", state: "opened", reason: "time-limit" });
    expect(run.stderr).not.toContain("no tmux pane");
    const opened = windows().find(([pane]) => pane === document.pane);
    // A window of its own, new, in the server's session.
    expect(opened).toEqual([document.pane, expect.any(String), "1", "main"]);
    expect(before.some(([, window]) => window === opened![1])).toBe(false);
    expect((await fromTerminal(["stop", "outside"])).status).toBe(0);
  });

  it("without --window: refused, nothing opened, and the fix is one that helps", async () => {
    const before = windows().length;
    const run = await fromTerminal(["spawn", "pi", "--label", "split", "--json"]);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, reason: "unresolved" });
    expect(run.stderr).toContain("pass --window to open it in a new window of that server");
    expect(run.stderr).not.toContain("pass -L/-S");
    expect(windows().length).toBe(before);
  });

  it("a server that is not running: refused with the server's own fix", async () => {
    const run = await fromTerminal(
      ["spawn", "pi", "--label", "nobody", "--window", "--json"],
      ["-L", "muster-test-000000000000"],
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("is not running");
  });
});
