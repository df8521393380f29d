// `muster join --nudge` end to end: a real `read` loop in `bash --norc --noprofile` in a private
// tmux pane joins with --nudge (the join runs in the pane's own process, which then becomes the
// loop), and the nudger it starts types the fixed line when mail arrives — never the mail's text,
// never into a half-typed line — and ends when the member's process does. It sits out a person's
// typing (~6 s): `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs; the nudger's rules are
// internal/wiring/src/nudge.test.ts.
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processAlive, processStart } from "@muster/node";
import {
  eventually,
  LONG_TESTS,
  type PrivateTmux,
  startPrivateTmux,
  tmuxEnv,
} from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { NUDGE_TEXT } from "@muster/tmux";
import { afterAll, describe, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-nudge-cli-")));
const teamDir = path.join(scratch, "team");
const NOWHERE = ["-L", "muster-test-000000000000"];
let server: PrivateTmux | undefined;
const nudgers: number[] = [];
afterAll(() => {
  server?.kill();
  for (const pid of nudgers) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // ended with its member, as it should
    }
  }
  rmSync(scratch, { recursive: true, force: true });
});

function muster(args: string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MUSTER, ...args, ...NOWHERE], {
      cwd: scratch,
      env: tmuxEnv({ HOME: scratch, MUSTER_TEAM_DIR: teamDir }),
      stdio: ["ignore", "pipe", "ignore"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.once("close", (status) => resolve({ status, stdout }));
  });
}

describe("muster join --nudge", () => {
  it.skipIf(!LONG_TESTS)(
    "types the fixed line for hostile mail, waits out a half-typed line, and ends with its member",
    async () => {
      const log = path.join(scratch, "typed.log");
      const joined = path.join(scratch, "joined.json");
      const repl = path.join(scratch, "repl.sh");
      writeFileSync(log, "");
      writeFileSync(
        repl,
        `while IFS= read -r -p "> " line; do printf '%s\\n' "$line" >> "${log}"; done\n`,
      );
      server = startPrivateTmux({ env: { HOME: scratch, MUSTER_TEAM_DIR: teamDir } });
      expect((await muster(["join", "sender", "--id", "s1"])).status).toBe(0);
      // The join runs in the pane's process, which then becomes the loop: same pid, same member.
      const pane = server
        .tmux(
          "new-window",
          "-d",
          "-P",
          "-F",
          "#{pane_id}",
          "-t",
          "main",
          `bash --norc --noprofile -c '"${process.execPath}" "${MUSTER}" join typist --nudge --json > "${joined}" 2>&1; exec bash --norc --noprofile "${repl}"'`,
        )
        .trim();
      const screen = () => server!.tmux("capture-pane", "-p", "-t", pane);
      const lines = () => readFileSync(log, "utf8").split("\n").slice(0, -1);
      const joinedDocument = await eventually(
        () => (existsSync(joined) ? readFileSync(joined, "utf8") : ""),
        (text) => text.trim().endsWith("}"),
        "the join",
      );
      const join = JSON.parse(joinedDocument);
      expect(join).toMatchObject({ ok: true, label: "typist", watching: { wake: true } });
      expect(join.seat.pane).toBe(pane);
      nudgers.push(join.nudge.pid);
      // Its start time now, while it surely runs: read after the window is killed, it may be gone.
      const nudgerStart = processStart(join.nudge.pid);
      expect(nudgerStart).toMatch(/^\d+$/);
      await eventually(screen, (text) => text.trimEnd().endsWith(">"), "the prompt");

      const roster = await openTestTeam(teamDir);
      // A body built to be typed: escapes, key names, a shell line. Only the fixed text is typed.
      const hostile = await roster.send({
        from: "s1",
        to: "typist",
        body: "\u001b[2J\u001b]2;owned\u0007 C-c Escape\r$(touch /tmp/pwned)\nrm -rf ~\n",
      });
      await eventually(lines, (seen) => seen.length > 0, "the nudge", { attempts: 200 });
      expect(lines()).toEqual([NUDGE_TEXT]);
      // Marked once the nudger saw the line submitted, a moment after the loop logged it.
      const woke = await eventually(
        async () => {
          const receipt = await roster.receipt(hostile.ok ? hostile.id : "");
          return receipt.ok ? receipt.recipients[0]?.phases.woke : undefined;
        },
        (mark) => mark !== undefined,
        "the woke mark",
      );
      expect(woke).toMatchObject({ how: "nudge" });
      // The mail itself is still unread: the nudge only tells the agent it is there.
      expect(await roster.unread(join.id)).toBe(1);
      // One nudger per member: a second one is refused while the first runs.
      const second = await muster(["nudge", "--id", join.id, "--json"]);
      expect(second.status).toBe(1);
      expect(JSON.parse(second.stdout)).toMatchObject({ ok: false, reason: "nudging" });

      // The user is typing: nothing is appended, nothing submitted, while the line is half-typed.
      server.tmux("send-keys", "-t", pane, "-l", "git sta");
      await eventually(screen, (text) => text.includes("> git sta"), "the typing");
      await roster.send({ from: "s1", to: "typist", body: "second" });
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(lines()).toEqual([NUDGE_TEXT]);
      expect(screen()).not.toContain(`git sta${NUDGE_TEXT.slice(0, 4)}`);
      server.tmux("send-keys", "-t", pane, "-l", "tus");
      server.tmux("send-keys", "-t", pane, "Enter");
      // The user's own line is theirs alone; then, idle again, the second mail gets its nudge.
      await eventually(lines, (seen) => seen.length >= 3, "the second nudge", { attempts: 200 });
      expect(lines()).toEqual([NUDGE_TEXT, "git status", NUDGE_TEXT]);

      // The member's process ends: the nudger ends with it.
      server.tmux("kill-window", "-t", pane);
      await eventually(
        () => processAlive(join.nudge.pid, nudgerStart),
        (fact) => fact === "dead",
        "the nudger to end",
        { attempts: 200 },
      );
    },
  );
});
