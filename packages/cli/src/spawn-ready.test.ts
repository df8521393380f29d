// A newcomer's spawn, end to end: the built binary run from a shell pane of a private tmux server,
// with a throwaway HOME that has pi, Codex and Claude Code on PATH but none of them set up for
// muster. A spawn of an engine that would never join is refused at once with the command that
// fixes it, and nothing is opened; a spawn that waits shows its progress on the terminal and, when
// the time limit ends the wait, says what it saw. The two spawns that start a real pi, and the
// engine that never starts (it waits out the time limit), run under `pnpm test:long`
// (MUSTER_LONG_TESTS), which CI runs.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LONG_TESTS, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paneCaller } from "../test/pane-caller.js";

const PI_PACKAGE = path.resolve(import.meta.dirname, "..", "..", "pi-extension");
const PI_CLI = path.join(
  PI_PACKAGE,
  "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js",
);
const FAUX = path.join(PI_PACKAGE, "test", "faux-extension.ts");
const BIN = path.resolve(import.meta.dirname, "..", "node_modules", ".bin");

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-spawn-ready-")));
const home = path.join(scratch, "home");
const repo = path.join(scratch, "repo");
const team = path.join(scratch, "team");
let server: PrivateTmux;
const fromPane = paneCaller(() => server, scratch, repo);

const panes = () => server.tmux("list-panes", "-a", "-F", "#{pane_id}").trim().split("\n");

beforeAll(() => {
  for (const folder of [home, repo, path.join(home, "bin"), path.join(home, "tmp")])
    mkdirSync(folder, { recursive: true });
  execFileSync("git", ["init", "-q", repo]);
  symlinkSync(PI_CLI, path.join(home, "bin", "pi"));
  for (const engine of ["codex", "claude"])
    symlinkSync(path.join(BIN, engine), path.join(home, "bin", engine));
  server = startPrivateTmux({
    command: "sleep 600",
    env: {
      HOME: home,
      TMPDIR: path.join(home, "tmp"),
      PATH: `${path.join(home, "bin")}:${path.dirname(process.execPath)}:${process.env.PATH}`,
      MUSTER_TEAM_DIR: team,
      CODEX_HOME: undefined,
      CLAUDE_CONFIG_DIR: undefined,
      PI_CODING_AGENT_DIR: undefined,
    },
  });
});

afterAll(() => {
  server.kill();
  rmSync(scratch, { recursive: true, force: true });
});

describe("an engine not set up for muster: refused at once, with the fix, nothing opened", () => {
  it.each([
    ["pi", "muster install pi"],
    ["codex", "muster install codex"],
    ["claude", "muster install claude"],
  ])("muster spawn %s", async (engine, fix) => {
    const before = panes();
    const began = Date.now();
    const run = await fromPane(["spawn", engine, "--label", `new-${engine}`]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `is not set up for muster here, so it would start and never join the team; nothing was opened; run ${fix}, then spawn again\\n$`,
      ),
    );
    // At once: not the 30 s wait of an engine that never joins.
    expect(Date.now() - began).toBeLessThan(25_000);
    // Nothing opened but the caller's own pane, no spawn record, nobody on the team.
    expect(panes().length).toBe(before.length + 1);
    expect(existsSync(path.join(team, "spawned", `new-${engine}.json`))).toBe(false);
    const json = await fromPane(["spawn", engine, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, reason: "engine-not-set-up" });
  });

  it("a Codex set up with a muster that has since moved: refused, naming what is gone", async () => {
    const config = path.join(home, ".codex", "config.toml");
    mkdirSync(path.dirname(config), { recursive: true });
    writeFileSync(
      config,
      '[mcp_servers.muster]\ncommand = "/nowhere/node"\nargs = ["/nowhere/muster.js", "mcp"]\n\n[tui]\nterminal_title = ["project", "thread-id"]\n',
    );
    try {
      const run = await fromPane(["spawn", "codex", "--json"]);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, reason: "engine-broken" });
      expect(run.stderr).toContain("runs /nowhere/node, which is not there");
    } finally {
      rmSync(path.dirname(config), { recursive: true, force: true });
    }
  });

  it.skipIf(!LONG_TESTS)(
    "a pi started with muster's extension on its command line (-e) is set up",
    async () => {
      const extension = path.join(PI_PACKAGE, "dist", "muster", "index.js");
      const run = await fromPane([
        "spawn",
        "pi",
        "--label",
        "with-e",
        "--json",
        "--",
        "-e",
        extension,
        "-e",
        FAUX,
        "--provider",
        "faux",
        "--model",
        "faux-1",
        "--offline",
      ]);
      expect(JSON.parse(run.stdout), run.stderr).toMatchObject({ ok: true, state: "joined" });
      expect((await fromPane(["stop", "with-e"])).status).toBe(0);
    },
  );
});

describe("a spawn that waits: progress on the terminal, and what was seen when time runs out", () => {
  it.skipIf(!LONG_TESTS)(
    "an engine that never starts: each step shown, then what the pane runs",
    async () => {
      const run = await fromPane(
        ["spawn", "pi", "--label", "never", "--timeout", "6", "--command", "sleep 600"],
        repo,
        { stderrToPane: true },
      );
      expect(run.status).toBe(1);
      expect(run.screen).toMatch(/muster: pane %\d+ opened; waiting for pi to start…/);
      expect(run.screen).toMatch(
        /muster: still waiting for pi to start in pane %\d+ \(\d s of 6\)…/,
      );
      expect(run.screen).toMatch(
        /muster: pi did not start in 6 s: pane (%\d+) runs sleep; look at pane \1 \(in main\), or end it with muster stop never/,
      );
      expect((await fromPane(["stop", "never"])).status).toBe(0);
    },
  );

  it.skipIf(!LONG_TESTS)(
    "an engine that starts and never joins (pi without muster's extension): its pid, and that it did not join",
    async () => {
      const command = `pi -e ${FAUX} --provider faux --model faux-1 --offline`;
      const run = await fromPane(
        ["spawn", "pi", "--label", "mute", "--timeout", "8", "--command", command],
        repo,
        { stderrToPane: true },
      );
      expect(run.status).toBe(1);
      expect(run.screen).toMatch(/muster: pi started \(pid \d+\); waiting for it to join as mute…/);
      expect(run.screen).toMatch(
        /muster: pi started \(pid \d+\) but did not join as mute in 8 s; look at pane %\d+ \(in main\), or end it with muster stop mute; muster doctor checks its set-up/,
      );
      const json = await fromPane([
        "spawn",
        "pi",
        "--label",
        "mute2",
        "--timeout",
        "8",
        "--command",
        command,
        "--json",
      ]);
      expect(JSON.parse(json.stdout)).toMatchObject({
        ok: false,
        reason: "time-limit",
        state: "started",
        seen: { pane: "running" },
      });
      // Nothing of the progress with --json, nor where stderr is not a terminal.
      expect(json.stderr).not.toContain("waiting");
      for (const label of ["mute", "mute2"])
        expect((await fromPane(["stop", label])).status).toBe(0);
    },
  );
});
