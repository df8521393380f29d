// A Codex teammate `muster spawn` starts wakes for its mail by default, though Codex was set up
// without `--wake` (`muster install codex`): its record says it wakes, the task that was its first
// prompt is read (not left unread, nor woken for again), and `muster send --wait` to it idle
// succeeds, woken by `codex queue`. Real Codex 0.171 (offline, the scripted model) in a private
// tmux pane opened by `muster spawn codex --task`, run from a bare bash pane of that server.
// Whole real Codex session: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { readFileSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS, managedDaemons, realCodex, userTexts } from "@muster/test-support";
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

const readOr = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};

it.skipIf(!LONG_TESTS)(
  "a spawned Codex wakes for its mail by default; its task mail is read",
  async () => {
    const codex = await realCodex({
      prefix: "muster-codex-spawn-wake-",
      codex: CODEX,
      muster: MUSTER,
      // The task's turn calls a muster tool; the mail's turn reads the mail (then it is shown).
      script: [
        { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
        { text: "Done." },
        ...Array.from({ length: 2 }, () => [
          { call: { name: "team_inbox", namespace: "mcp__muster", arguments: {} } },
          { text: "Read." },
        ]).flat(),
      ],
    });
    cleanups.push(() => codex.close());
    const { home, teamDir, model, server } = codex;
    const daemonsBefore = managedDaemons(home);
    cleanups.push(() => {
      for (const pid of managedDaemons(home).filter((pid) => !daemonsBefore.includes(pid)))
        process.kill(pid, "SIGKILL");
    });
    const roster = await openTestTeam(teamDir);
    const reviewer = await joinAsThisProcess(roster, "reviewer");
    const out = path.join(home, "spawn");
    const run = (line: string) => {
      server.tmux("send-keys", "-t", "main", "-l", line);
      server.tmux("send-keys", "-t", "main", "Enter");
    };
    run(
      `'${process.execPath}' '${MUSTER}' spawn codex --label coder --task 'task zero' --json > ${out}.json 2> ${out}.err; echo $? > ${out}.status`,
    );
    const status = await eventually(
      () => readOr(`${out}.status`).trim(),
      (text) => text !== "",
      "muster spawn to finish",
      { attempts: 600, intervalMs: 100 },
    );
    expect(status, readOr(`${out}.err`)).toBe("0");
    expect(JSON.parse(readOr(`${out}.json`))).toMatchObject({ label: "coder", mail: "wakes" });
    const read = await roster.read();
    const coder = read.ok ? read.members.find((member) => member.label === "coder") : undefined;
    expect(coder?.watching).toEqual({ armed: true, wake: true });

    // The task's turn ran; its mail is read, marked shown by the prompt.
    await eventually(
      () => model.requests.some((request) => userTexts(request).includes("task zero")),
      (seen) => seen,
      "the task's turn",
      { attempts: 300, intervalMs: 100 },
    );
    expect(await roster.unread(coder!.id)).toBe(0);
    const history = await roster.history(coder!.id);
    const task = history.ok ? history.messages.find((m) => m.body === "task zero") : undefined;
    const taskReceipt = await roster.receipt(task!.id);
    expect(taskReceipt.ok && taskReceipt.recipients[0]?.phases).toMatchObject({
      delivered: { how: "prompt" },
      acknowledged: {},
    });

    // Idle, then mailed: woken by codex queue, and the sender's --wait is met.
    const asked = model.requests.length;
    const wait = path.join(home, "wait");
    run(
      `'${process.execPath}' '${MUSTER}' send coder 'tests are green' --id ${reviewer} --wait --timeout 60s --json > ${wait}.json 2> ${wait}.err; echo $? > ${wait}.status`,
    );
    const waited = await eventually(
      () => readOr(`${wait}.status`).trim(),
      (text) => text !== "",
      "send --wait to finish",
      { attempts: 700, intervalMs: 100 },
    );
    expect(waited, readOr(`${wait}.json`) + readOr(`${wait}.err`)).toBe("0");
    const sent = JSON.parse(readOr(`${wait}.json`));
    const receipt = await roster.receipt(sent.id);
    expect(receipt.ok && receipt.recipients[0]?.phases.woke).toBeDefined();
    // A turn ran for it: the model was asked again after the task's turn.
    await eventually(
      () => model.requests.length,
      (count) => count > asked,
      "a turn for the mail",
      { attempts: 300, intervalMs: 100 },
    );
  },
  180_000,
);
