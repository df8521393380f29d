// The real Claude Code 2.1.332 TUI as a team member, in a pane of a private tmux server, offline
// (the scripted Messages API model), set up by `muster install claude`, beside a real pi member.
// Mail to it while idle starts a turn that carries it (FileChanged asyncRewake); mail that arrives
// mid-turn continues that turn at Stop; an Edit of a path pi leased is denied by the PreToolUse
// hook; idle_prompt is recorded. A Claude Code start costs seconds and idle_prompt a minute: these
// run under `pnpm test:long` only (claude.test.ts is the short proof).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { takeLease } from "@muster/node";
import type { Member } from "@muster/roster";
import {
  eventually,
  LONG_TESTS,
  type PrivateTmux,
  rounds,
  startPrivateTmux,
} from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAUDE, type ClaudeKit, claudeKit, piMember, requestText } from "../test/claude.js";

describe.skipIf(!LONG_TESTS)("a real Claude Code TUI on the team", () => {
  let kit: ClaudeKit;
  let pi: ReturnType<typeof piMember>;
  let tmux: PrivateTmux;
  let pane: string;
  let claude: Member;
  let reviewer: Member;
  let debugLog: string;

  const member = async (test: (member: Member) => boolean) => {
    const read = await kit.roster.read();
    return read.ok ? read.members.find(test) : undefined;
  };
  const me = () => member((entry) => entry.id === claude.id);
  /** Requests that took a step of the script (the main loop's, not Claude Code's side questions). */
  const turns = () => kit.model.requests.filter((request) => request.scripted);
  const idle = () =>
    eventually(me, (record) => record?.activity?.state === "idle", "Claude to be idle", {
      attempts: 400,
    });
  /** Type a prompt into Claude's own pane (this test's private server) and submit it. */
  const type = async (text: string) => {
    tmux.tmux("send-keys", "-t", pane, "-l", text);
    await new Promise((resolve) => setTimeout(resolve, 300));
    tmux.tmux("send-keys", "-t", pane, "Enter");
  };
  const send = (body: string) => kit.roster.send({ from: reviewer.id, to: "writer", body });

  beforeAll(async () => {
    kit = await claudeKit([]);
    debugLog = path.join(kit.home, "claude-debug.log");
    pi = piMember(kit, "reviewer");
    pi.command({ type: "prompt", message: "/team join reviewer --wake" });
    tmux = startPrivateTmux({ command: "sleep 600", env: kit.env });
    pane = tmux
      .tmux(
        "new-window",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        "-c",
        kit.repo,
        `${CLAUDE} --dangerously-skip-permissions --debug-file ${debugLog}`,
      )
      .trim();
    claude = (await eventually(
      () => member((entry) => entry.agent === "claude"),
      Boolean,
      "Claude Code's SessionStart hook to join",
      { attempts: 600 },
    ))!;
    reviewer = (await eventually(
      // With wake on: pi started with --muster-label joins by itself without it first.
      () => member((entry) => entry.label === "reviewer" && entry.watching.wake),
      Boolean,
      "the pi member to join with wake on",
      { attempts: 600 },
    ))!;
    expect(claude).toMatchObject({ label: "writer", seat: { pane }, watching: { wake: true } });
    await idle();
    // Mail that lands before Claude Code watches the mailbox waits for the next prompt: wait
    // until it watches (its debug log says so; nothing else does).
    await eventually(
      () => {
        try {
          return readFileSync(debugLog, "utf8");
        } catch {
          return "";
        }
      },
      // The mailbox and the doorbell (its bells removed by each delivery).
      (text) => text.includes("FileChanged: watching 2 paths"),
      "Claude Code to watch the mailbox",
      { attempts: 300 },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }, 90_000);

  afterAll(async () => {
    tmux?.kill();
    pi?.kill();
    // Claude Code writes its debug log as it exits: remove the home only once it is gone.
    const running = () => {
      try {
        process.kill(claude.pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    if (claude) await eventually(running, (alive) => !alive, "Claude Code to exit").catch(() => {});
    await kit?.close();
  });

  it("mail to it while idle starts a turn at once, and the turn's request carries the mail", async () => {
    const latencies: number[] = [];
    for (let round = 0; round < rounds(2, 5); round += 1) {
      const before = turns().length;
      const sent = await send(`idle mail ${round}`);
      if (!sent.ok) throw new Error(sent.error);
      const [request] = await eventually(
        () => turns().slice(before),
        (fresh) => fresh.length > 0,
        "a turn to start",
        { attempts: 300 },
      );
      latencies.push(request!.at - Date.parse(sent.sentAt));
      expect(requestText(request!.body)).toContain(`idle mail ${round}`);
      expect(await kit.roster.unread(claude.id)).toBe(0);
      await idle();
    }
    console.info(`mail written → Claude Code turn started: ${latencies.join(", ")} ms`);
  }, 120_000);

  it("mail that arrives mid-turn continues that turn at Stop instead of starting another", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    kit.model.script.push({ text: "Working on it.", after: held }, { text: "Read the news." });
    const before = turns().length;
    await type("work on the parser");
    await eventually(
      () => turns().length,
      (count) => count > before,
      "the turn to start",
    );
    const sent = await send("mid-turn news");
    expect(sent.ok).toBe(true);
    // Time for the mailbox watcher to fire while the turn runs: a busy session is not re-woken.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await kit.roster.unread(claude.id)).toBe(1);
    release();
    await eventually(
      () => turns().length,
      (count) => count >= before + 2,
      "the turn to go on",
    );
    await idle();
    const after = turns().slice(before);
    expect(after).toHaveLength(2);
    expect(requestText(after[1]!.body)).toContain("Team mail arrived while you worked");
    expect(requestText(after[1]!.body)).toContain("mid-turn news");
    // Nothing is left to start another turn.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(turns().length).toBe(before + 2);
  }, 60_000);

  it("the PreToolUse hook denies an Edit of a path the pi member leased, naming the holder", async () => {
    const file = path.join(kit.repo, "src", "a.ts");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "export const a = 1;\n");
    const leased = await takeLease(
      kit.roster,
      {
        holderId: reviewer.id,
        holder: "reviewer",
        pattern: "src/a.ts",
        mode: "exclusive",
        reason: "fixing a",
        ttlMs: 600_000,
      },
      false,
    );
    expect(leased.ok).toBe(true);
    kit.model.script.push(
      { call: { name: "Read", arguments: { file_path: file } } },
      {
        call: {
          name: "Edit",
          arguments: { file_path: file, old_string: "a = 1", new_string: "a = 2" },
        },
      },
      { text: "Blocked; I will ask the reviewer." },
    );
    const before = turns().length;
    await type("change a to 2");
    await eventually(
      () => turns().length,
      (count) => count >= before + 3,
      "the edit to be answered",
      { attempts: 300 },
    );
    await idle();
    const answer = requestText(turns().at(-1)!.body);
    expect(answer).toMatch(/src\/a\.ts is leased \(src\/a\.ts\), held by reviewer \(fixing a\)/);
    expect(answer).toContain('"is_error":true');
    expect(readFileSync(file, "utf8")).toBe("export const a = 1;\n");
  }, 60_000);

  it("idle_prompt, a minute after a turn, is recorded as the member's idleness", async () => {
    const before = turns().length;
    await type("say hello");
    await eventually(
      () => turns().length,
      (count) => count > before,
      "the turn to start",
    );
    const ended = Date.parse((await idle())!.activity!.at);
    // Stop said idle when the turn ended; idle_prompt says it again about 60 s later.
    const noticed = await eventually(
      me,
      (record) => Date.parse(record?.activity?.at ?? "") > ended + 30_000,
      "the idle_prompt notification",
      { attempts: 200, intervalMs: 500 },
    );
    expect(noticed?.activity?.state).toBe("idle");
    console.info(
      `turn ended → idle_prompt recorded: ${Date.parse(noticed!.activity!.at) - ended} ms`,
    );
  }, 150_000);
});
