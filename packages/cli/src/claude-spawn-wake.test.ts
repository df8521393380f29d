// A Claude Code teammate `muster spawn` starts wakes for its mail: its record says it wakes, the
// task that was its first prompt is read (not left unread, nor woken for again), and `muster send
// --wait` to it idle succeeds, woken by its FileChanged hook. Real Claude Code 2.1.332 (offline,
// the scripted Messages model, set up by `muster install claude`) in a private tmux pane opened by
// `muster spawn claude --task`, run from a bare bash pane of that server.
// A Claude Code start costs seconds: `pnpm test:long` (MUSTER_LONG_TESTS) only.
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS, startPrivateTmux } from "@muster/test-support";
import { joinAsThisProcess } from "@muster/test-team";
import { afterEach, expect, it } from "vitest";
import { CLAUDE, claudeKit, MUSTER, requestText } from "../test/claude.js";

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
  "a spawned Claude Code wakes for its mail; its task mail is read",
  async () => {
    const kit = await claudeKit([{ text: "Done." }, { text: "Read it." }], "unused");
    cleanups.push(() => kit.close());
    const bin = path.join(kit.home, "bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync(CLAUDE, path.join(bin, "claude"));
    const debugLog = path.join(kit.home, "claude-debug.log");
    const server = startPrivateTmux({
      command: "bash --norc --noprofile",
      cwd: kit.repo,
      env: { ...kit.env, PATH: `${bin}:${kit.env.PATH}`, MUSTER_LABEL: undefined },
    });
    cleanups.push(() => server.kill());
    const reviewer = await joinAsThisProcess(kit.roster, "reviewer");
    const run = (line: string) => {
      server.tmux("send-keys", "-t", "main", "-l", line);
      server.tmux("send-keys", "-t", "main", "Enter");
    };
    const out = path.join(kit.home, "spawn");
    run(
      `'${process.execPath}' '${MUSTER}' spawn claude --label writer --task 'task zero' --json -- --dangerously-skip-permissions --debug-file ${debugLog} > ${out}.json 2> ${out}.err; echo $? > ${out}.status`,
    );
    const status = await eventually(
      () => readOr(`${out}.status`).trim(),
      (text) => text !== "",
      "muster spawn to finish",
      { attempts: 900, intervalMs: 100 },
    );
    expect(status, readOr(`${out}.err`) + readOr(`${out}.json`)).toBe("0");
    const spawned = JSON.parse(readOr(`${out}.json`));
    expect(spawned).toMatchObject({ label: "writer", mail: "wakes", task: { mailed: true } });
    // Claude Code asked to quit ends its own hooks (a SIGKILL would leave its FileChanged hook).
    const alive = () => {
      try {
        process.kill(spawned.pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    cleanups.push(async () => {
      if (alive()) process.kill(spawned.pid, "SIGTERM");
      await eventually(alive, (running) => !running, "Claude Code to exit").catch(() => {
        if (alive()) process.kill(spawned.pid, "SIGKILL");
      });
    });
    const read = await kit.roster.read();
    const writer = read.ok ? read.members.find((member) => member.label === "writer") : undefined;
    expect(writer?.watching).toEqual({ armed: true, wake: true });

    // The task's turn ran; its mail is read, marked shown by the prompt, and woke nothing.
    const scripted = () => kit.model.requests.filter((request) => request.scripted);
    await eventually(
      () => scripted().some((request) => requestText(request.body).includes("task zero")),
      (seen) => seen,
      "the task's turn",
      { attempts: 600 },
    );
    expect(await kit.roster.unread(writer!.id)).toBe(0);
    const history = await kit.roster.history(writer!.id);
    const task = history.ok ? history.messages.find((m) => m.body === "task zero") : undefined;
    const taskReceipt = await kit.roster.receipt(task!.id);
    expect(taskReceipt.ok && taskReceipt.recipients[0]?.phases).toMatchObject({
      delivered: { how: "prompt" },
      acknowledged: {},
    });
    // Mail that lands before Claude Code watches its mailbox waits for the next prompt.
    await eventually(
      () => readOr(debugLog),
      (text) => text.includes("FileChanged: watching 2 paths"),
      "Claude Code to watch its mailbox",
      { attempts: 600 },
    );
    await eventually(
      async () => {
        const team = await kit.roster.read();
        return team.ok ? team.members.find((member) => member.id === writer!.id) : undefined;
      },
      (member) => member?.activity?.state === "idle",
      "Claude Code to be idle",
      { attempts: 600 },
    );
    expect(scripted()).toHaveLength(1);
    // Idle is marked as the turn ends; its Stop hook may still look for mail to go on with.
    await new Promise((resolve) => setTimeout(resolve, 1000));

    // Idle, then mailed: woken by its hook, and the sender's --wait is met.
    const wait = path.join(kit.home, "wait");
    run(
      `'${process.execPath}' '${MUSTER}' send writer 'tests are green' --id ${reviewer} --wait --timeout 60s --json > ${wait}.json 2> ${wait}.err; echo $? > ${wait}.status`,
    );
    const waited = await eventually(
      () => readOr(`${wait}.status`).trim(),
      (text) => text !== "",
      "send --wait to finish",
      { attempts: 700, intervalMs: 100 },
    );
    expect(waited, readOr(`${wait}.json`) + readOr(`${wait}.err`)).toBe("0");
    const sent = JSON.parse(readOr(`${wait}.json`));
    const receipt = await kit.roster.receipt(sent.id);
    expect(receipt.ok && receipt.recipients[0]?.phases.woke, JSON.stringify(receipt)).toBeDefined();
    // The turn the hook started carries the mail.
    await eventually(
      () => scripted().map((request) => requestText(request.body)),
      (texts) => texts.length === 2 && texts[1]!.includes("tests are green"),
      "the woken turn with the mail",
      { attempts: 300 },
    );
  },
  180_000,
);
