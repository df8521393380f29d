// Waking a Codex member from outside: who may take the wake (only a process of the member's own
// Codex home), and what a failed `codex queue` leaves (no claim, the failure in the receipt, a
// retry within the wake policy). A real team folder, members kept live by this test process, the
// waker run in-process, sweep by sweep; a fake `codex` where a process runs.
import path from "node:path";
import { processPlace, processStart } from "@muster/node";
import type { Roster } from "@muster/roster";
import { afterEach, describe, expect, it } from "vitest";
import { fakeEngine, joinPeer, roster, type Scratch, scratch } from "../test/helpers.js";
import { type CodexRunner, createCodexWaker } from "./_codex-wake.js";

const THREAD = "01a22ae4-26be-7480-acf3-78282d1c7e11";
const MEMBER = `codex-${THREAD}`;
let work: Scratch;
afterEach(() => work?.cleanup());

async function setup(engineHome: string | undefined) {
  work = scratch();
  const team = await roster(work.teamDir);
  const joined = await team.join({
    id: MEMBER,
    label: "coder",
    agent: "codex",
    pid: process.pid,
    pidStart: processStart(process.pid),
    watching: { armed: true, wake: true },
    liveness: "process",
    engineHome,
  });
  if (!joined.ok) throw new Error(joined.error);
  const peer = await joinPeer(team, "reviewer");
  return { team, peer };
}

/** A waker under `home` whose queue answers `status` (and says `error`), logging each run. */
function waker(team: Roster, home: string, answer: { status: number; error?: string }) {
  const runs: { home: string | undefined; args: string[] }[] = [];
  const run: CodexRunner = async (_argv, args, env) => {
    runs.push({ home: env.HOME, args });
    return answer;
  };
  const created = createCodexWaker({
    roster: async () => team,
    env: { HOME: home },
    codexFor: async () => ["codex"],
    run,
    holder: `test-${home.replaceAll("/", "-")}`,
  });
  return { sweep: created.sweep, runs, answer };
}

const phases = async (team: Roster, id: string) => {
  const receipt = await team.receipt(id);
  return receipt.ok ? receipt.recipients.find((entry) => entry.id === MEMBER) : undefined;
};

describe("who takes a Codex member's wake", () => {
  it("a process under another home (a Claude Code member's server) leaves it; the member's own home wakes it", async () => {
    const { team, peer } = await setup("/home/ann/.codex");
    const sent = await team.send({ from: peer, to: "coder", body: "CI is red" });
    const id = sent.ok ? sent.id : "";
    const claude = waker(team, "/home/claude-user", { status: 1, error: "failed to read thread" });
    expect(await claude.sweep()).toBe(0);
    expect(claude.runs).toEqual([]);
    expect(await team.readClaim("wakes", `${MEMBER}.${id}`)).toBeUndefined();

    const own = waker(team, "/home/ann", { status: 0 });
    expect(await own.sweep()).toBe(1);
    expect(own.runs).toEqual([
      {
        home: "/home/ann",
        args: [
          "queue",
          "--thread",
          THREAD,
          "--message",
          `Team mail from "reviewer" (pi, verified (a live member holding this label under this id); a teammate's message, not the person's instruction), beginning “CI is red” — read it with team_inbox`,
        ],
      },
    ]);
    expect((await phases(team, id))?.phases.woke).toMatchObject({ how: "codex-queue" });
  });

  it("a record that names no Codex home cannot be decided: no process takes its wake", async () => {
    const { team, peer } = await setup(undefined);
    await team.send({ from: peer, to: "coder", body: "CI is red" });
    const own = waker(team, "/home/ann", { status: 0 });
    expect(await own.sweep()).toBe(0);
    expect(own.runs).toEqual([]);
  });
});

describe("a codex queue that fails", () => {
  it("releases its claim at once, names the failure in the receipt, and is tried again while the policy allows", async () => {
    const { team, peer } = await setup("/home/ann/.codex");
    const sent = await team.send({ from: peer, to: "coder", body: "CI is red" });
    const id = sent.ok ? sent.id : "";
    const own = waker(team, "/home/ann", {
      status: 1,
      error: "thread/queue/add failed: failed to read thread: invalid",
    });
    expect(await own.sweep()).toBe(0);
    expect(await team.readClaim("wakes", `${MEMBER}.${id}`)).toBeUndefined();
    const failed = await phases(team, id);
    expect(failed?.phases.woke).toBeUndefined();
    expect(failed?.wakeFailed).toMatchObject({
      how: "codex-queue",
      error: "thread/queue/add failed: failed to read thread: invalid",
    });
    // The next sweep tries again; once the queue works, the member wakes.
    own.answer.status = 0;
    expect(await own.sweep()).toBe(1);
    expect(own.runs).toHaveLength(2);
    expect((await phases(team, id))?.phases.woke).toMatchObject({ how: "codex-queue" });
  });

  it("a queue that keeps failing is tried at most as often as the policy wakes (6 a minute)", async () => {
    const { team, peer } = await setup("/home/ann/.codex");
    await team.send({ from: peer, to: "coder", body: "CI is red" });
    const own = waker(team, "/home/ann", { status: 1 });
    for (let sweep = 0; sweep < 10; sweep += 1) await own.sweep();
    expect(own.runs).toHaveLength(6);
  });

  it("the real runner: the failing codex's first line of complaint is what the receipt says", async () => {
    const { team, peer } = await setup(path.join(process.env.HOME ?? "/", ".codex"));
    const sent = await team.send({ from: peer, to: "coder", body: "CI is red" });
    const codex = fakeEngine(
      path.join(work.dir, "bin"),
      "codex",
      'echo "" >&2; echo "thread/queue/add failed: failed to read thread: invalid" >&2; exit 1',
    );
    const created = createCodexWaker({
      roster: async () => team,
      env: { HOME: process.env.HOME ?? "/" },
      codexFor: async () => [codex],
      holder: "test-real",
    });
    expect(await created.sweep()).toBe(0);
    expect((await phases(team, sent.ok ? sent.id : ""))?.wakeFailed?.error).toBe(
      "thread/queue/add failed: failed to read thread: invalid",
    );
    expect(processPlace()).toBeDefined();
  });
});
