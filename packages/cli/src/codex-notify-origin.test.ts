// `muster hook codex notify` as Codex runs it (a child of the Codex process of the thread, or of
// its daemon) and as anything else could run it: a process that is not under Codex names a working
// member's thread, and must neither mark it idle nor queue its mail to the thread. The stand-in
// Codex is a real process (sh) whose pid the member's record holds; a fake `codex` on PATH logs
// what would have been queued.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { processStart } from "@muster/node";
import { eventually, tmuxEnv } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterAll, describe, expect, it } from "vitest";
import { MUSTER, musterKit } from "../test/run.js";

const { scratch, newTeam } = musterKit("muster-notify-origin-");
const children: ChildProcess[] = [];
afterAll(async () => {
  // Each stand-in Codex is ended and waited for; what a hook it ran may still be writing into the
  // scratch folder as it goes is retried past (rm's ENOTEMPTY, seen in a replayed suite).
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
          child.once("exit", resolve);
          child.kill("SIGKILL");
        }),
    ),
  );
  rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

const THREAD = "01a22ae4-26be-7480-acf3-78282d1c2b3a";
const payload = JSON.stringify({
  type: "agent-turn-complete",
  "thread-id": THREAD,
  "turn-id": "t1",
  "input-messages": ["hi"],
  "last-assistant-message": "done",
});

describe("muster hook codex notify believes only Codex", () => {
  it("a process not under Codex changes nothing; the same call from under the thread's Codex marks it idle and queues its mail", async () => {
    const dir = newTeam();
    const bin = path.join(scratch, "bin");
    mkdirSync(bin, { recursive: true });
    const queued = path.join(scratch, "queued.log");
    writeFileSync(path.join(bin, "codex"), `#!/bin/sh\nprintf '%s\\n' "$@" >> "${queued}"\n`, {
      mode: 0o755,
    });
    const env = tmuxEnv({
      HOME: scratch,
      MUSTER_TEAM_DIR: dir,
      PATH: `${bin}:${process.env.PATH}`,
    });
    // The thread's Codex: waits for `go`, then runs notify as its child, as Codex does.
    const go = path.join(scratch, "go");
    const codex = spawn(
      "sh",
      [
        "-c",
        `while [ ! -f "${go}" ]; do sleep 0.05; done; "${process.execPath}" "${MUSTER}" hook codex notify "$1"; exec sleep 60`,
        "codex",
        payload,
      ],
      { env, stdio: "ignore" },
    );
    children.push(codex);
    const pid = codex.pid!;
    const roster = await openTestTeam(dir);
    const member = `codex-${THREAD}`;
    expect(
      await roster.join({
        id: member,
        label: "coder",
        agent: "codex",
        pid,
        pidStart: processStart(pid),
        watching: { armed: true, wake: true },
        liveness: "process",
      }),
    ).toMatchObject({ ok: true });
    const at = new Date().toISOString();
    await roster.activity(member, () => ({
      activity: { state: "working", since: at, at, signal: "codex/status-active" },
    }));
    const peer = await roster.join({
      id: "peer",
      label: "reviewer",
      agent: "pi",
      pid: process.pid,
      watching: { armed: false, wake: false },
      liveness: "heartbeat",
    });
    expect(peer).toMatchObject({ ok: true });
    await roster.send({ from: "peer", to: "coder", body: "the build is green" });
    const state = async () => {
      const read = await roster.read();
      return read.ok ? read.members.find((entry) => entry.id === member)?.activity?.state : "?";
    };

    // Anyone else: this test's own child, not under the stand-in Codex.
    const forged = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [MUSTER, "hook", "codex", "notify", payload], {
        env,
        stdio: "ignore",
      });
      child.once("close", resolve);
    });
    expect(forged).toBe(0);
    expect(await state()).toBe("working");
    expect(await roster.unread(member)).toBe(1);
    expect(existsSync(queued)).toBe(false);

    // Codex itself.
    writeFileSync(go, "");
    await eventually(state, (now) => now === "idle", "the notify from under Codex to mark it idle");
    const log = await eventually(
      () => (existsSync(queued) ? readFileSync(queued, "utf8") : ""),
      (text) => text.includes("the build is green"),
      "the mail queued to the thread",
    );
    expect(log).toContain(THREAD);
  });
});
