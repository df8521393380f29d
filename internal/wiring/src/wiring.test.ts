// The shared wiring against the real parts: a real filesystem for the roster and the inbox watcher,
// real child processes for the caller's ancestry, and a private tmux server for seats.
import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processStart } from "@muster/node";
import { eventually, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
  addCard,
  changeCard,
  errorMessage,
  findMyAgent,
  findMySeat,
  openTeam,
  processRows,
  setLead,
  teamBoard,
  watchInbox,
} from "./index.ts";
import { teamDir } from "./open-team.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-wiring-")));
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(scratch, { recursive: true, force: true });
});
const start = (command: string, args: string[]) => {
  const child = spawn(command, args, { stdio: "ignore" });
  children.add(child);
  return child;
};

describe("errorMessage", () => {
  it.each([
    [new Error("disk full"), "disk full"],
    ["a thrown string", "a thrown string"],
    [{ message: "an error-like object" }, "an error-like object"],
    [42, "42"],
    [undefined, "undefined"],
  ])("%j → %s", (thrown, text) => {
    expect(errorMessage(thrown)).toBe(text);
  });
});

describe("openTeam", () => {
  it("a folder named exactly is taken from the working directory, and git is never asked", async () => {
    let asked = 0;
    const folder = async () => {
      asked += 1;
      return { dir: "/nowhere" } as never;
    };
    const cwd = path.join(scratch, "work");
    mkdirSync(cwd);
    expect(await teamDir({ cwd, teamDir: "team-a", folder })).toBe(path.join(cwd, "team-a"));
    expect(await teamDir({ cwd, env: { MUSTER_TEAM_DIR: "/abs/team" }, folder })).toBe("/abs/team");
    expect(await teamDir({ dir: "/reopened", teamDir: "ignored", folder })).toBe("/reopened");
    expect(asked).toBe(0);
    expect(await teamDir({ cwd, env: {}, folder })).toBe("/nowhere");
    expect(asked).toBe(1);
  });

  it("opens a roster on the real filesystem, mode 0700, and it works", async () => {
    const opened = await openTeam({ cwd: scratch, teamDir: "team-b", env: {} });
    if (!opened.ok) throw new Error(opened.error);
    expect(opened.roster.dir).toBe(path.join(scratch, "team-b"));
    const joined = await opened.roster.join({
      id: "s1",
      label: "alice",
      agent: "test",
      pid: process.pid,
      cwd: scratch,
      watching: { armed: true, wake: false },
      liveness: "heartbeat",
    });
    expect(joined).toMatchObject({ ok: true, label: "alice" });
    expect(statSync(opened.roster.dir).mode & 0o777).toBe(0o700);
    const read = await opened.roster.read();
    expect(read.ok && read.members.map((member) => member.label)).toEqual(["alice"]);
  });

  it("a join waits while another live process holds the member lock a moment (300 ms)", async () => {
    const opened = await openTeam({ cwd: scratch, teamDir: "team-lock", env: {} });
    if (!opened.ok) throw new Error(opened.error);
    const lockFile = path.join(opened.roster.dir, "locks", "member.s1.lock");
    // Another live process (a prune, say) holds s1's member lock, then releases it.
    const holder = start("sh", ["-c", `sleep 0.3; rm -f '${lockFile}'`]);
    const released = new Promise((resolve) => holder.once("exit", resolve));
    const lock = {
      v: 1,
      holder: "prune",
      at: new Date().toISOString(),
      token: "held-by-prune",
      pid: holder.pid,
      pidStart: processStart(holder.pid!),
    };
    writeFileSync(lockFile, `${JSON.stringify(lock)}\n`);
    const joined = await opened.roster.join({
      id: "s1",
      label: "waiter",
      agent: "test",
      pid: process.pid,
      watching: { armed: true, wake: false },
      liveness: "heartbeat",
    });
    await released;
    // Without a real wait the roster's tries ran out in milliseconds: "busy".
    expect(joined).toMatchObject({ ok: true, label: "waiter" });
  });

  it("a team folder others can write to is refused as a value, never used", async () => {
    const unsafe = path.join(scratch, "unsafe");
    mkdirSync(unsafe, { mode: 0o700 });
    chmodSync(unsafe, 0o777);
    const opened = await openTeam({ dir: unsafe });
    expect(opened).toMatchObject({ ok: false, reason: "unsafe-folder" });
  });
});

describe("the caller and its seat", () => {
  let server: PrivateTmux;
  beforeAll(() => {
    server = startPrivateTmux();
  });
  afterAll(() => server?.kill());

  it("the caller is the nearest agent above the command, seen through node", async () => {
    const codex = path.join(scratch, "lib", "node_modules", "@openai", "codex", "bin", "codex.js");
    mkdirSync(path.dirname(codex), { recursive: true });
    writeFileSync(
      codex,
      'require("node:child_process").spawn("sleep", ["30"], { stdio: "ignore" });\nsetInterval(() => {}, 1 << 30);\n',
    );
    const agent = start(process.execPath, [codex]);
    const rows = await eventually(
      async () => {
        const table = await processRows();
        return table.ok ? table.processes : [];
      },
      (processes) => processes.some((row) => row.ppid === agent.pid && row.name === "sleep"),
      "the fake codex's child",
    );
    const shell = rows.find((row) => row.ppid === agent.pid)!;
    // The fake codex's own child outlives it once it is killed: ended here, by its pid.
    onTestFinished(() => {
      process.kill(shell.pid, "SIGKILL");
    });
    expect(findMyAgent(rows, shell.pid)).toMatchObject({ pid: agent.pid, engine: "codex" });
    expect(findMyAgent(rows, process.pid)).toMatchObject({ pid: process.pid, engine: undefined });
    expect(findMyAgent(rows, 2 ** 30)).toMatchObject({ ok: false, reason: "no-caller" });
  });

  it("outside tmux with no server named, no seat is looked for: tmux is never run", async () => {
    const calls: string[][] = [];
    const result = await findMySeat({
      pid: process.pid,
      env: {},
      run: async (args) => {
        calls.push(args);
        return { status: 1, stdout: "", stderr: "" };
      },
    });
    expect(result).toMatchObject({ ok: false, reason: "outside-tmux" });
    expect(calls).toEqual([]);
  });

  it("the seat is proven by ancestry; a $TMUX_PANE that disagrees is noted, not trusted", async () => {
    const pane = server
      .tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main", "sleep 30")
      .trim();
    const panePid = Number(server.tmux("display-message", "-p", "-t", pane, "#{pane_pid}"));
    const serverPid = server.tmux("display-message", "-p", "#{pid}").trim();
    const env = { TMUX: `${server.socket},${serverPid},0`, TMUX_PANE: "%0" };
    const seated = await findMySeat({ pid: panePid, env, run: server.run });
    expect(seated).toMatchObject({
      ok: true,
      seat: { pane, server: server.socket, sessionName: "main" },
      note: expect.stringContaining(`$TMUX_PANE says %0, but the process descends from ${pane}`),
    });
    const elsewhere = await findMySeat({ pid: process.pid, env, run: server.run });
    expect(elsewhere).toMatchObject({ ok: false, reason: "unresolved" });
  });

  it("a tmux killed by a signal is no seat, not a crash", async () => {
    const result = await findMySeat({
      pid: process.pid,
      env: {},
      target: { name: server.name },
      run: async () => ({ status: null, stdout: "", stderr: "" }),
    });
    expect(result).toMatchObject({ ok: false, reason: "no-server" });
  });
});

describe("watchInbox", () => {
  it("a burst of arrivals folds into serialized reads that see every message once", async () => {
    const folder = path.join(scratch, "mail-new");
    mkdirSync(folder);
    let running = 0;
    let overlapped = false;
    let reads = 0;
    const seen = new Set<string>();
    const inbox = watchInbox({
      folder: () => folder,
      read: async () => {
        running += 1;
        if (running > 1) overlapped = true;
        reads += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        for (const name of readdirSync(folder)) seen.add(name);
        running -= 1;
      },
      sweepMs: 60_000,
      onError: (error) => {
        throw error;
      },
    });
    expect(inbox.watching).toBe(true);
    for (let index = 0; index < 50; index += 1)
      writeFileSync(path.join(folder, `m${index}.json`), "{}");
    await eventually(
      () => seen.size,
      (size) => size === 50,
      "every message read",
    );
    await inbox.sweep();
    inbox.close();
    expect(overlapped).toBe(false);
    expect(reads).toBeLessThan(50);
  });

  it("a mailbox that does not exist yet is swept, and watched once it exists", async () => {
    const folder = path.join(scratch, "later", "new");
    let reads = 0;
    const errors: unknown[] = [];
    const inbox = watchInbox({
      folder: () => folder,
      read: async () => {
        reads += 1;
        if (reads === 1) throw new Error("unreadable");
      },
      sweepMs: 50,
      onError: (error) => errors.push(error),
    });
    expect(inbox.watching).toBe(false);
    await eventually(
      () => reads,
      (count) => count >= 2,
      "two sweeps",
    );
    expect(errors.map(errorMessage)).toEqual(["unreadable"]);
    mkdirSync(folder, { recursive: true });
    expect(inbox.rewatch()).toBe(true);
    expect(inbox.watching).toBe(true);
    inbox.unwatch();
    expect(inbox.watching).toBe(false);
    inbox.close();
    const after = reads;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(reads).toBe(after);
  });
});

describe("the board", () => {
  it("a claim of a card whose holder died releases it first, in one change, with the reason", async () => {
    const dir = path.join(scratch, "board-team");
    const opened = await openTeam({ dir });
    if (!opened.ok) throw new Error(opened.error);
    const roster = opened.roster;
    const doomed = start("sleep", ["30"]);
    const pidStart = processStart(doomed.pid!);
    const join = (id: string, pid: number, start?: string) =>
      roster.join({
        id,
        label: id,
        agent: "test",
        pid,
        pidStart: start,
        watching: { armed: true, wake: false },
        liveness: "process",
      });
    expect(await join("doomed", doomed.pid!, pidStart)).toMatchObject({ ok: true });
    expect(await join("taker", process.pid, processStart(process.pid))).toMatchObject({ ok: true });
    const team = teamBoard(roster);
    expect(await setLead(team, { label: "taker", id: "taker" }, "taker")).toMatchObject({
      ok: true,
    });
    const added = await addCard(team, { label: "doomed", id: "doomed" }, { title: "work" });
    expect(added).toMatchObject({ ok: true, decision: { card: { id: "c1" } } });
    expect(
      await changeCard(team, { label: "doomed", id: "doomed" }, { kind: "claim", card: "c1" }),
    ).toMatchObject({ ok: true });
    doomed.kill("SIGKILL");
    await new Promise((resolve) => doomed.once("exit", resolve));
    const taken = await changeCard(
      team,
      { label: "taker", id: "taker" },
      { kind: "claim", card: "c1" },
    );
    if (!taken.ok) throw new Error(taken.error);
    expect(taken.decision.card.owner).toEqual({ label: "taker", id: "taker" });
    expect(taken.decision.card.history.map((entry) => entry.event)).toEqual([
      "created",
      "claimed",
      "released",
      "claimed",
    ]);
    expect(taken.decision.card.history[2]).toMatchObject({
      by: "doomed",
      note: "doomed's process died",
    });
  });
});
