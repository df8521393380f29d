// The dashboard's actions in a real pane: the built CLI's `status --watch` in a private tmux
// server, keys sent as a person types them. `n` starts a member (engine, then label) with the
// CLI's own spawn — refused as the CLI refuses it while pi is not installed in this HOME, and,
// once it is (real pi, the faux model, offline), a real pi that joins under that label — `x`
// stops the selected member after a confirmation that names it (its pane closes, it shows as
// stopped), `s` sends it the mail typed (in its mailbox), `u` brings the declared team up as
// `muster up` does (refused alike without pi; with pi, the declared member joins in the team's
// window), and a member SIGKILLed is listed as
// crashed with what brings it back. Each answer is in the dashboard's own line; the title stays on
// the first row and no line passes the pane's width. A real pane run with two real pi starts:
// `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs; the actions' own rules are tested in
// process (dashboard-prompt.test.ts).
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processStart } from "@muster/node";
import { eventually, LONG_TESTS, startPrivateTmux, tmuxEnv } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterAll, expect, it } from "vitest";
import { MUSTER } from "../test/run.js";
import { PI_ARGS, writePi } from "../test/up-kit.js";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-dashboard-actions-")));
const cleanups: (() => void)[] = [() => rmSync(scratch, { recursive: true, force: true })];
afterAll(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

type Run = { status: number | null; stdout: string; stderr: string };

type MemberRecord = { id: string; pid: number; pidStart: string; agent: string };

/** The team's member records: label → its id and pid (on the roster). */
function records(team: string): { [label: string]: MemberRecord } {
  const folder = path.join(team, "sessions");
  const found: { [label: string]: MemberRecord } = {};
  for (const name of existsSync(folder) ? readdirSync(folder) : []) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    const record = JSON.parse(readFileSync(path.join(folder, name), "utf8"));
    if (record.label) found[record.label] = record;
  }
  return found;
}

/** End the pi each of `labels` runs (started by this test), by its pid while it is still that process. */
const endMembers = (team: string, labels: string[]) => () => {
  const joined = records(team);
  for (const label of labels) {
    const record = joined[label];
    if (!record || record.pid === process.pid || processStart(record.pid) !== record.pidStart)
      continue;
    try {
      process.kill(record.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
};

it.skipIf(!LONG_TESTS)(
  "n, x, s and u do what the CLI does, answered in the dashboard's line; a crash is listed with its fix",
  async () => {
    const team = path.join(scratch, "team");
    const repo = path.join(scratch, "repo");
    mkdirSync(repo, { recursive: true });
    // A repository: muster.toml is read from its main checkout.
    execFileSync("git", ["init", "-q", repo]);
    // pi goes in `bin` (on PATH from the start) only once the refusals without it are seen.
    const bin = path.join(scratch, "bin");
    mkdirSync(bin, { recursive: true });
    const env = {
      HOME: scratch,
      PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH}`,
      PI_OFFLINE: "1",
      MUSTER_HEARTBEAT_MS: "300",
      MUSTER_TEAM_DIR: team,
      LANG: "C.UTF-8",
      LC_ALL: undefined,
      LC_CTYPE: undefined,
      CI: "true",
    };
    const server = startPrivateTmux({ env, cwd: repo, command: "sleep 600" });
    cleanups.push(() => server.kill());
    // The real pi members n and u start, ended by pid before their server (also on a failure).
    cleanups.push(endMembers(team, ["newbie", "ursula"]));
    const cli = (args: string[]): Promise<Run> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [MUSTER, ...args, "-L", server.name], {
          cwd: repo,
          env: tmuxEnv(env),
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
    const roster = await openTestTeam(team);
    const join = async (id: string, label: string, pid: number) =>
      expect(
        (
          await roster.join({
            id,
            label,
            agent: "pi",
            pid,
            pidStart: processStart(pid),
            watching: { armed: true, wake: false },
            liveness: "process",
          })
        ).ok,
      ).toBe(true);

    // bob: a pane muster spawned (its program no engine: the spawn's wait ends at its limit).
    const spawned = await cli(
      ["spawn", "pi", "--label", "bob", "--window", "--timeout", "1"].concat([
        "--command",
        "sleep 600",
        "--json",
      ]),
    );
    const bob = JSON.parse(spawned.stdout) as { pane: string; pid: number };
    await join("t-bob", "bob", bob.pid);
    // carol: kept live by this test's process; dave: a process of its own, killed below.
    await join("t-carol", "carol", process.pid);
    const dave = spawn("sleep", ["600"], { stdio: "ignore" });
    cleanups.push(() => dave.kill("SIGKILL"));
    await join("t-dave", "dave", dave.pid!);

    const watch = `${process.execPath} ${MUSTER} status --watch -L ${server.name}`;
    const dashboard = server
      .tmux(
        "split-window",
        "-h",
        "-d",
        "-l",
        "70",
        "-P",
        "-F",
        "#{pane_id}",
        "-c",
        repo,
        "-t",
        "main",
        `${watch}; echo "exited $?"; sleep 600`,
      )
      .trim();
    const screen = () => server.tmux("capture-pane", "-p", "-t", dashboard);
    const rowOf = (text: string, label: string) =>
      text.split("\n").find((row) => row.slice(2).startsWith(`${label} `)) ?? "";
    /** The screen whole: the title on the first row, no line past the pane's 70 columns. */
    const whole = (text: string) =>
      /^muster · team/.test(text) && text.split("\n").every((row) => row.length <= 70);
    const keys = (...names: string[]) => server.tmux("send-keys", "-t", dashboard, ...names);
    const typed = (text: string) => server.tmux("send-keys", "-t", dashboard, "-l", text);
    await eventually(screen, (text) => /idle|unknown|starting/.test(rowOf(text, "bob")), "bob", {
      attempts: 300,
    });

    // dave's process is SIGKILLed: crashed, first after who needs the person, with its fix.
    dave.kill("SIGKILL");
    const crashed = await eventually(
      screen,
      (text) => /crashed/.test(rowOf(text, "dave")),
      "dave shown crashed",
      { attempts: 300 },
    );
    expect(crashed).toContain("Crashed or down (1)");
    expect(crashed).toMatch(/ {2}dave\s+crashed\s+muster up dave brings it back/);
    expect(rowOf(crashed, "dave")).toMatch(/^› dave/);
    expect(crashed).toContain("dave: muster up dave brings it back · no pane");

    // n: the engine, then the label; the CLI's own spawn answers, here with its refusal.
    keys("n");
    await eventually(screen, (text) => text.includes("start which engine? p pi"), "n's prompt");
    keys("p");
    await eventually(screen, (text) => text.includes("start pi as (label"), "the label prompt");
    typed("newbie");
    await eventually(screen, (text) => text.includes("newbie_"), "the label typed");
    keys("Enter");
    const byCli = await cli(["spawn", "pi", "--label", "newbie", "--window"]);
    expect(byCli.status).toBe(1);
    const refusal = byCli.stderr.trim().replace(/^muster: /, "");
    const started = await eventually(
      screen,
      (text) => text.replace(/\s+/g, " ").includes(refusal.slice(0, 50)),
      "spawn's refusal in the dashboard's line",
      { attempts: 300 },
    );
    expect(whole(started), started).toBe(true);

    // x on bob: asked by name, stopped on y, its pane closed; shown stopped, not crashed.
    keys("Down");
    await eventually(screen, (text) => rowOf(text, "bob").startsWith("› "), "bob selected");
    keys("x");
    await eventually(screen, (text) => text.includes("stop bob? y yes"), "x's confirmation");
    keys("y");
    const stopped = await eventually(
      screen,
      (text) => text.includes(`stopped bob (pi in pane ${bob.pane})`),
      "stop's answer",
      { attempts: 300 },
    );
    expect(whole(stopped), stopped).toBe(true);
    expect(server.tmux("list-panes", "-a", "-F", "#{pane_id}").split("\n")).not.toContain(bob.pane);
    expect(existsSync(path.join(team, "spawned", "bob.json"))).toBe(false);
    await eventually(screen, (text) => /stopped \d+s ago/.test(rowOf(text, "bob")), "bob stopped", {
      attempts: 300,
    });

    // s on carol: the text typed is sent as `muster send` sends it.
    keys("Down");
    await eventually(screen, (text) => rowOf(text, "carol").startsWith("› "), "carol selected");
    keys("s");
    await eventually(screen, (text) => text.includes("mail to carol (enter send"), "s's prompt");
    typed("the parser review is ready");
    await eventually(screen, (text) => text.includes("review is ready_"), "the mail typed");
    keys("Enter");
    const sent = await eventually(
      () => roster.receive("t-carol"),
      (inbox) => inbox.ok && inbox.messages.length === 1,
      "carol's mail",
      { attempts: 300 },
    );
    expect(sent.ok && sent.messages[0]?.body).toBe("the parser review is ready");
    const answered = await eventually(
      screen,
      (text) => /mail to carol\. · Sent /.test(text) && !text.includes("sending to"),
      "send's answer",
    );
    expect(whole(answered), answered).toBe(true);

    // u: the declared team up, as `muster up` brings it: pi is not installed in this HOME, so up
    // refuses before it opens anything, with the fix; the CLI's own `muster up` says the same.
    writeFileSync(
      path.join(repo, "muster.toml"),
      `[[member]]\nlabel = "ursula"\nengine = "pi"\n${PI_ARGS}\n`,
    );
    // Declared, not up: listed down with what brings it back.
    await eventually(
      screen,
      (text) => / {2}ursula\s+down\s+muster up ursula brings it back/.test(text),
      "ursula listed down",
      { attempts: 300 },
    );
    keys("u");
    const up = await eventually(
      screen,
      (text) => /ursula: /.test(text) && !text.includes("bringing the team up"),
      "up's answer",
      { attempts: 600 },
    );
    expect(whole(up), up).toBe(true);
    expect(up).toMatch(/ursula: pi is not installed here \(pi is not on PATH\)/);
    const upByCli = await cli(["up"]);
    expect(upByCli.stderr).toMatch(
      /ursula: pi is not installed here \(pi is not on PATH\), so nothing was started/,
    );

    // Esc closes a prompt without acting; q then quits as before.
    keys("x");
    await eventually(screen, (text) => text.includes("stop carol? y yes"), "x's confirmation");
    keys("Escape");
    await eventually(screen, (text) => text.includes("cancelled"), "cancelled");

    // pi installed and set up for muster (its default model the faux one, offline): n and u again.
    writePi(bin, scratch);
    const settings = path.join(scratch, ".pi", "agent", "settings.json");
    const set = JSON.parse(readFileSync(settings, "utf8"));
    writeFileSync(
      settings,
      JSON.stringify({ ...set, defaultProvider: "faux", defaultModel: "faux-1" }),
    );
    // n: a real pi started in a window of its own, joined as newbie; spawn's answer in the line.
    keys("n");
    await eventually(screen, (text) => text.includes("start which engine? p pi"), "n's prompt");
    keys("p");
    await eventually(screen, (text) => text.includes("start pi as (label"), "the label prompt");
    typed("newbie");
    await eventually(screen, (text) => text.includes("newbie_"), "the label typed");
    keys("Enter");
    // The line is spawn's answer, cut at the pane's width: "pane %N opened in main; pi started
    // (pid N); joined as newbie; woken by its mail".
    const spawnedLine = /pane (%\d+) opened in main; pi started \(pid (\d+)\); joined as newb/;
    const newbieStarted = await eventually(
      screen,
      (text) => spawnedLine.test(text),
      "spawn's answer in the dashboard's line",
      { attempts: 600 },
    );
    expect(whole(newbieStarted), newbieStarted).toBe(true);
    const [, newbiePane, newbiePid] = newbieStarted.match(spawnedLine)!;
    // On the roster as that pi, in the pane spawn named (a window of its own); in the dashboard.
    expect(records(team).newbie).toMatchObject({ agent: "pi", pid: Number(newbiePid) });
    const spawnedPane = (label: string) =>
      JSON.parse(readFileSync(path.join(team, "spawned", `${label}.json`), "utf8")).pane;
    expect(spawnedPane("newbie")).toBe(newbiePane);
    await eventually(
      screen,
      (text) => /idle|working/.test(rowOf(text, "newbie")),
      "newbie listed",
      {
        attempts: 300,
      },
    );

    // u: ursula, declared and down, brought up in the team's window; up's answer in the line:
    // "team window repo in session … · ursula: started fresh (pi) in pane %N", cut at the width.
    keys("u");
    const broughtUp = await eventually(
      screen,
      (text) =>
        /team window repo in session \S+ · ursula: started fresh/.test(text) &&
        !text.includes("bringing the team up"),
      "up's answer in the dashboard's line",
      { attempts: 600 },
    );
    expect(whole(broughtUp), broughtUp).toBe(true);
    await eventually(() => records(team).ursula, Boolean, "ursula on the roster", {
      attempts: 300,
    });
    expect(records(team).ursula).toMatchObject({ agent: "pi" });
    const windows = server.tmux("list-panes", "-a", "-F", "#{window_name} #{pane_id}");
    expect(windows.split("\n")).toContain(`repo ${spawnedPane("ursula")}`);
    await eventually(
      screen,
      (text) => /idle|working/.test(rowOf(text, "ursula")),
      "ursula listed up",
      { attempts: 300 },
    );
    // The CLI's own up finds it up, as the dashboard's did.
    const againByCli = await cli(["up"]);
    expect(againByCli.status, againByCli.stderr).toBe(0);
    expect(againByCli.stdout).toContain("ursula: already up, left alone");
    keys("q");
    await eventually(screen, (text) => text.includes("exited 0"), "q to quit");
  },
  180_000,
);
