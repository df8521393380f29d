// No wake is lost, with a real Codex: a Codex teammate spawned with a task (its first mail) is sent
// mail past the wake rate (MUSTER_WAKE_PER_MINUTE=2). Each mail is either woken or marked held with
// when it wakes again, and each held one is woken once the minute is over. Real Codex 0.171 (offline,
// the scripted model answering every turn), in a private tmux pane opened by `muster spawn`; every
// process that can wake it (its MCP server's waker, each turn's notify) shares the member's rate.
// Long (it waits out the minute, ~64 s): behind MUSTER_LONG_TESTS.
import path from "node:path";
import { eventually, LONG_TESTS, managedDaemons, realCodex } from "@muster/test-support";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch(() => undefined);
});

it.skipIf(!LONG_TESTS)(
  "mail past the rate is held, the sender told when, and woken after the window",
  async () => {
    const codex = await realCodex({
      prefix: "muster-codex-rate-",
      codex: CODEX,
      muster: MUSTER,
      install: ["--wake"],
      // The task's turn joins it (a team_roster call), and so may the first turn a mail wakes.
      script: Array.from({ length: 3 }, () => [
        { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
        { text: "Joined." },
      ]).flat(),
    });
    cleanups.push(() => codex.close());
    const { home, teamDir, server } = codex;
    const daemonsBefore = managedDaemons(home);
    cleanups.push(() => {
      for (const pid of managedDaemons(home).filter((pid) => !daemonsBefore.includes(pid)))
        process.kill(pid, "SIGKILL");
    });
    // The one setting every door reads, in the environment the spawned pane (and Codex's children) get.
    server.tmux("set-environment", "-g", "MUSTER_WAKE_PER_MINUTE", "2");
    const roster = await openTestTeam(teamDir);
    const reviewer = await joinAsThisProcess(roster, "reviewer");
    server.tmux(
      "send-keys",
      "-t",
      "main",
      "-l",
      `MUSTER_WAKE_PER_MINUTE=2 '${process.execPath}' '${MUSTER}' spawn codex --label coder --task 'task zero' > ${home}/spawn.out 2>&1`,
    );
    server.tmux("send-keys", "-t", "main", "Enter");
    const coder = await eventually(
      async () => {
        const read = await roster.read();
        return read.ok
          ? read.members.find(
              (member) => member.label === "coder" && member.id.startsWith("codex-"),
            )
          : undefined;
      },
      (member) => member !== undefined,
      "the spawned Codex on the roster",
      { attempts: 600, intervalMs: 100 },
    );
    const entry = async (id: string) => {
      const receipt = await roster.receipt(id);
      return receipt.ok ? receipt.recipients.find((each) => each.id === coder!.id) : undefined;
    };
    // The task is mailed once spawn has looked at the first turn (up to 3 s after the join): it was
    // the first prompt, so its mail is read at once and spends no wake.
    const taskPhases = await eventually(
      async () => {
        const history = await roster.history(coder!.id);
        const task = history.ok
          ? history.messages.find((message) => message.body.includes("task zero"))
          : undefined;
        return task && (await entry(task.id))?.phases;
      },
      (phases) => phases !== undefined,
      "the task mailed as read",
      { attempts: 200, intervalMs: 100 },
    );
    expect(taskPhases).toMatchObject({ delivered: { how: "prompt" } });
    const sent: string[] = [];
    // One mail at a time, each after the last is woken or held: each is a wake of its own.
    for (let index = 1; index <= 3; index += 1) {
      if (sent.length > 0)
        await eventually(
          () => entry(sent.at(-1)!),
          (mark) => mark?.phases.woke !== undefined || mark?.wakeHeld !== undefined,
          `mail ${index - 1} woken or held`,
          { attempts: 300, intervalMs: 100 },
        );
      const mail = await roster.send({ from: reviewer, to: "coder", body: `task ${index}` });
      if (!mail.ok) throw new Error(mail.error);
      sent.push(mail.id);
    }
    await eventually(
      () => entry(sent.at(-1)!),
      (mark) => mark?.phases.woke !== undefined || mark?.wakeHeld !== undefined,
      "the last mail woken or held",
      { attempts: 300, intervalMs: 100 },
    );
    const first = await Promise.all(sent.map(entry));
    const held = sent.filter((_id, index) => first[index]?.wakeHeld && !first[index]?.phases.woke);
    const woke = first.filter((mark) => mark?.phases.woke).length;
    expect(woke, JSON.stringify(first)).toBeLessThanOrEqual(2);
    expect(held.length, JSON.stringify(first)).toBeGreaterThanOrEqual(sent.length - 2);
    const heldMark = first[sent.indexOf(held[0]!)]!.wakeHeld!;
    expect(heldMark).toMatchObject({ reason: "rate-limited", words: "2 wakes in the last minute" });
    // Held, not lost: each wakes at a sweep after the window.
    for (const id of held) {
      const later = await eventually(
        () => entry(id),
        (mark) => mark?.phases.woke !== undefined,
        `held mail ${id} woken after the window`,
        { attempts: 1000, intervalMs: 100 },
      );
      const retryAfter = Date.parse(first[sent.indexOf(id)]!.wakeHeld!.retryAfter);
      expect(Date.parse(later!.phases.woke!.at)).toBeGreaterThanOrEqual(retryAfter);
    }
  },
  240_000,
);
