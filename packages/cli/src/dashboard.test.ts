// `muster status --watch` on a real terminal: the built CLI in a 60-column side pane of a private
// tmux server, with a real client attached (a second private server's pane runs `tmux attach`),
// as a person uses it. Members' activity is recorded as their engines' signals record it. The
// dashboard shows each member on one row of the 60 columns, follows a change of activity live,
// takes the client to the selected member's pane on Enter, and gives the terminal back on q and
// on Ctrl-C (exit 0, the alternate screen gone), also where it has no keys to read. A real terminal
// session of ~5 s: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs; the dashboard's rows,
// prompt and sections are tested in process in `pnpm test` (dashboard-lines, dashboard-prompt).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually, LONG_TESTS, startPrivateTmux } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterAll, expect, it } from "vitest";
import { MUSTER } from "../test/run.js";

const scratch = mkdtempSync(path.join(tmpdir(), "muster-dashboard-"));
const cleanups: (() => void)[] = [() => rmSync(scratch, { recursive: true, force: true })];
afterAll(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

type State = "working" | "idle" | "needs-you";

it.skipIf(!LONG_TESTS)(
  "fits a 60-column pane, follows activity live, goes to a pane on Enter, and quits on q and Ctrl-C",
  async () => {
    const team = path.join(scratch, "team");
    const env = {
      HOME: scratch,
      MUSTER_TEAM_DIR: team,
      LANG: "C.UTF-8",
      LC_ALL: undefined,
      LC_CTYPE: undefined,
      // Ink draws a terminal in place only outside CI unless told: the dashboard tells it.
      CI: "true",
    };
    const server = startPrivateTmux({ env, cwd: scratch, command: "bash --norc --noprofile" });
    cleanups.push(() => server.kill());
    const bobPane = server.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "sleep 600").trim();
    // Bob's process is the one in his pane: go follows only a seat whose pane holds it.
    const bobPid = Number(
      server.tmux("display-message", "-p", "-t", bobPane, "#{pane_pid}").trim(),
    );
    const roster = await openTestTeam(team);
    const at = async (id: string, state: State) => {
      const now = new Date().toISOString();
      await roster.activity(id, () => ({
        activity: { state, since: now, at: now, signal: "pi/turn-start" },
      }));
    };
    for (const [id, label, pane] of [
      ["a1", "alice", undefined],
      ["b1", "bob", bobPane],
    ] as const) {
      await roster.join({
        id,
        label,
        agent: "pi",
        pid: pane ? bobPid : process.pid,
        watching: { armed: true, wake: false },
        liveness: "heartbeat",
        ...(pane ? { seat: { server: server.socket, session: "$0", pane } } : {}),
      });
    }
    await at("a1", "working");
    await at("b1", "idle");
    const watch = `${process.execPath} ${MUSTER} status --watch -L ${server.name}`;
    const dashboard = server
      .tmux(
        "split-window",
        "-h",
        "-d",
        "-l",
        "60",
        "-P",
        "-F",
        "#{pane_id}",
        "-t",
        "main",
        `${watch}; echo "exited $?"; sleep 600`,
      )
      .trim();
    expect(server.tmux("display-message", "-p", "-t", dashboard, "#{pane_width}").trim()).toBe(
      "60",
    );
    const viewer = startPrivateTmux({
      env,
      command: `env -u TMUX tmux -u -L ${server.name} attach -t main`,
    });
    cleanups.push(() => viewer.kill());
    const screen = () => server.tmux("capture-pane", "-p", "-t", dashboard);
    const rowOf = (text: string, label: string) =>
      text.split("\n").find((row) => row.slice(2).startsWith(`${label} `)) ?? "";

    const first = await eventually(
      screen,
      (text) => /working/.test(rowOf(text, "alice")) && /idle/.test(rowOf(text, "bob")),
      "the dashboard's members",
    );
    expect(first).toContain("muster · team");
    expect(rowOf(first, "alice")).toMatch(/^› alice\s+pi\s+working \d+s\s+-$/);
    // One row each, within 60 columns: nothing wrapped onto a row of its own.
    for (const row of first.split("\n")) expect(row.length).toBeLessThanOrEqual(60);
    // The keys, u among them once the dashboard knows this muster has `muster up`.
    await eventually(
      screen,
      (text) => text.includes("↑↓  enter go  n start  x stop  s send  u up  m mail  q quit"),
      "the keys",
    );

    // A narrower pane is laid out again: still one row per member, none past the edge.
    server.tmux("resize-pane", "-t", dashboard, "-x", "40");
    // Each member's whole row, its MAIL column last, on one line of the 40.
    const whole = (text: string) =>
      text.split("\n").filter((row) => /^(› | {2})(alice|bob)\s+pi\s.*\s-$/.test(row));
    const narrow = await eventually(
      screen,
      (text) => whole(text).length === 2 && /^ {2}LABEL\s.*MAIL$/m.test(text),
      "the dashboard laid out for 40 columns",
    );
    for (const row of narrow.split("\n")) expect(row.length).toBeLessThanOrEqual(40);
    server.tmux("resize-pane", "-t", dashboard, "-x", "60");

    // Alice's engine reports a wait for the person: the dashboard shows it without a key pressed.
    await at("a1", "needs-you");
    await eventually(
      screen,
      (text) => /needs-you/.test(rowOf(text, "alice")),
      "alice shown needing you",
    );

    // Down to bob, Enter: the attached client now shows bob's pane.
    server.tmux("send-keys", "-t", dashboard, "Down");
    await eventually(screen, (text) => rowOf(text, "bob").startsWith("› "), "bob selected");
    server.tmux("send-keys", "-t", dashboard, "Enter");
    await eventually(
      () => server.tmux("list-clients", "-F", "#{pane_id}").trim(),
      (pane) => pane === bobPane,
      "the client on bob's pane",
    );
    // The dashboard says where it went once the switch is done, a moment after the client moved.
    await eventually(screen, (text) => text.includes(`bob: pane ${bobPane}`), "the go's message");

    // m shows the person's mail (the member joined from a shell), and leaves it unread.
    await roster.join({
      id: "shell-1",
      label: "sam",
      agent: "bash",
      pid: process.pid,
      watching: { armed: false, wake: false },
      liveness: "heartbeat",
    });
    await roster.send({ from: "a1", to: "sam", body: "the parser review is ready" });
    await eventually(screen, (text) => /^ {2}sam\s+bash/m.test(text), "sam on the dashboard");
    server.tmux("send-keys", "-t", dashboard, "m");
    const mail = await eventually(screen, (text) => text.includes("Your mail (1)"), "the mail");
    expect(mail).toMatch(/ {2}alice\s+\d+s\s+the parser review is ready/);
    expect(await roster.unread("shell-1")).toBe(1);
    server.tmux("send-keys", "-t", dashboard, "m");
    await eventually(screen, (text) => !text.includes("Your mail"), "the mail hidden");

    // q gives the terminal back: the program ended with 0, the alternate screen is off.
    server.tmux("send-keys", "-t", dashboard, "q");
    const after = await eventually(screen, (text) => text.includes("exited 0"), "q to quit");
    expect(after).not.toContain("enter go");
    expect(server.tmux("display-message", "-p", "-t", dashboard, "#{alternate_on}").trim()).toBe(
      "0",
    );

    // And Ctrl-C, in a dashboard started again in the same pane.
    server.tmux("respawn-pane", "-k", "-t", dashboard, `${watch}; echo "ended $?"; sleep 600`);
    await eventually(screen, (text) => text.includes("enter go"), "the dashboard again");
    server.tmux("send-keys", "-t", dashboard, "C-c");
    await eventually(screen, (text) => text.includes("ended 0"), "Ctrl-C to quit");
    expect(server.tmux("display-message", "-p", "-t", dashboard, "#{alternate_on}").trim()).toBe(
      "0",
    );

    // With no terminal to read keys from (stdin from /dev/null) it is drawn all the same, and Ctrl-C,
    // a SIGINT from the terminal, ends it with 0 (the shell traps it, to stay and say so).
    server.tmux(
      "respawn-pane",
      "-k",
      "-t",
      dashboard,
      `trap true INT; ${watch} < /dev/null; echo "over $?"; sleep 600`,
    );
    await eventually(
      screen,
      (text) => /needs-you/.test(rowOf(text, "alice")),
      "the dashboard, no keys",
    );
    server.tmux("send-keys", "-t", dashboard, "C-c");
    await eventually(screen, (text) => text.includes("over 0"), "Ctrl-C to end it without keys");
  },
  60_000,
);
