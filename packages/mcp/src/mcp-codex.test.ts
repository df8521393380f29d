// The MCP server through the SDK's own client, over stdio, for a Codex caller: the member named by
// _meta.threadId, found by the pane whose Codex shows that thread, each test with a private tmux
// server of its own. The Codex is a stand-in (a script named like it). The rest of the server's
// tools and callers are mcp.test.ts (a file apart, so Vitest runs the two side by side). The thread
// replaced by /new sits out a claim's 10 s grace: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { existsSync, readFileSync } from "node:fs";
import { eventually, LONG_TESTS, startPrivateTmux } from "@muster/test-support";
import { describe, expect, it } from "vitest";
import {
  call,
  cleanupAfterEach,
  connect,
  fakeEngine,
  joinPeer,
  roster,
  SERVE,
  scratchUntil,
} from "../test/helpers.ts";

const cleanups = cleanupAfterEach();

/** Kill the private server and see it gone: a server left behind keeps its fake Codex running. */
async function killForSure(tmux: ReturnType<typeof startPrivateTmux>) {
  tmux.kill();
  for (let attempt = 0; attempt < 20; attempt += 1) {
    try {
      tmux.tmux("has-session");
    } catch {
      return; // no server answers: gone
    }
    try {
      tmux.tmux("kill-server");
    } catch {
      // gone meanwhile
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const setup = () => scratchUntil(cleanups);

async function serve(env: Record<string, string>) {
  const connected = await connect(process.execPath, [SERVE], env);
  cleanups.push(() => connected.close());
  return connected;
}

describe("Codex: the caller named by _meta.threadId", () => {
  const THREAD = "01a22ae4-26be-7480-acf3-78282d1c9f00";
  const title = (thread: string) => `repo | ${thread.slice(0, 29)}...`;

  /**
   * A pane running the stand-in Codex under `thread`'s title, once its process is that Codex: tmux
   * starts it through the shell's `-c`, which a loaded machine can still show when the server
   * looks (then the pane runs no Codex yet, and two panes read as one).
   */
  async function codexPane(tmux: ReturnType<typeof startPrivateTmux>, bin: string, thread: string) {
    const codex = fakeEngine(bin, "codex", "while :; do sleep 1; done");
    // A Codex's label is the one its own process was started with (the server's is the first window's).
    const [pane, pid] = tmux
      .tmux(
        "new-window",
        "-P",
        "-F",
        "#{pane_id} #{pane_pid}",
        "-e",
        "MUSTER_LABEL=coder",
        `bash ${codex}`,
      )
      .trim()
      .split(" ") as [string, string];
    await eventually(
      () => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[1];
        } catch {
          return undefined;
        }
      },
      (argument) => argument === codex,
      `pane ${pane} running ${codex}`,
    );
    tmux.tmux("select-pane", "-t", pane, "-T", title(thread));
    return pane;
  }

  async function codexSetup() {
    const work = setup();
    const tmux = startPrivateTmux();
    cleanups.push(() => killForSure(tmux));
    const env = {
      MUSTER_TEAM_DIR: work.teamDir,
      TMUX: `${tmux.socket},1,0`,
      MUSTER_LABEL: "coder",
    };
    return { work, tmux, env };
  }

  it("joins the thread's pane's Codex on its first call; it is gone when that Codex exits", async () => {
    const { work, tmux, env } = await codexSetup();
    const pane = await codexPane(tmux, work.bin, THREAD);
    const { client } = await serve(env);
    const meta = {
      threadId: THREAD,
      "x-codex-turn-metadata": { thread_id: THREAD, turn_id: "t1" },
    };
    const listed = await call(client, "team_roster", {}, meta);
    expect(listed.structured.you).toMatchObject({ label: "coder", id: `codex-${THREAD}`, pane });
    // Its seat is named as every other member's is: the tmux session's name, not only its id.
    const seated = await (await roster(work.teamDir)).read();
    expect(seated.ok && seated.members[0]?.seat).toMatchObject({
      sessionName: "main",
      session: expect.stringMatching(/^\$\d+$/),
      pane,
    });
    // The same server without the thread id is a guest: it runs under no engine.
    expect((await call(client, "team_roster")).structured.guest).toMatchObject({
      reason: "no-engine",
    });

    tmux.tmux("kill-pane", "-t", pane);
    const team = await roster(work.teamDir);
    await eventually(
      async () => {
        const read = await team.read();
        return read.ok ? read.members.map((member) => `${member.label} ${member.state}`) : [];
      },
      (states) => states.join() === "coder gone",
      "the Codex member to be gone once its process exits",
    );
  });

  it.skipIf(!LONG_TESTS)(
    "after /new in the same Codex TUI the old thread is gone: its label and unread mail move to the new thread, its card reopens, its lease goes",
    async () => {
      const { work, tmux, env } = await codexSetup();
      const pane = await codexPane(tmux, work.bin, THREAD);
      const { client } = await serve(env);
      const old = { threadId: THREAD };
      expect((await call(client, "team_roster", {}, old)).structured.you).toMatchObject({
        label: "coder",
      });
      expect((await call(client, "team_add", { title: "fix the parser" }, old)).isError).toBe(
        false,
      );
      expect((await call(client, "team_claim", { card: "c1" }, old)).isError).toBe(false);
      expect((await call(client, "team_lease", { paths: ["src/**"] }, old)).isError).toBe(false);
      const team = await roster(work.teamDir);
      const peer = await joinPeer(team, "reviewer");
      await team.send({ from: peer, to: "coder", body: "for the old thread" });

      // /new: the same TUI process shows the new thread in its title, and its first call names it.
      const fresh = "01a22ae4-26be-7480-acf3-78282d1c9f01";
      tmux.tmux("select-pane", "-t", pane, "-T", title(fresh));
      const now = { threadId: fresh };
      const joined = await call(client, "team_roster", {}, now);
      expect(joined.structured.you).toMatchObject({
        label: "coder",
        id: `codex-${fresh}`,
        took: { from: `codex-${THREAD}`, why: "left", forwarded: 1 },
      });
      const read = await team.read();
      expect(read.ok && read.members.map((member) => member.id).sort()).toEqual([
        `codex-${fresh}`,
        peer,
      ]);
      const inbox = await call(client, "team_inbox", {}, now);
      expect(inbox.structured.messages).toMatchObject([{ body: "for the old thread" }]);
      // Its card reopens once the claim is older than the grace a releasing reader gets (10 s).
      const cards = await eventually(
        async () => (await call(client, "team_cards", { state: "all" }, now)).structured.cards,
        (listed) => (listed as { state: string }[])[0]?.state === "open",
        "the left thread's card to reopen",
        { attempts: 150, intervalMs: 200 },
      );
      expect(cards).toMatchObject([{ id: "c1", state: "open" }]);
      const leases = await call(client, "team_leases", {}, now);
      expect(leases.structured.leases).toEqual([]);
    },
  );

  it("refuses a thread id two panes show, never guessing", async () => {
    const { work, tmux, env } = await codexSetup();
    const one = await codexPane(tmux, work.bin, THREAD);
    const two = await codexPane(tmux, work.bin, THREAD);
    const { client } = await serve(env);
    const answer = await call(client, "team_roster", {}, { threadId: THREAD });
    expect(answer.structured.guest).toMatchObject({ reason: "ambiguous-pane" });
    expect(answer.text).toContain(`(${one}, ${two})`);
    const team = await roster(work.teamDir);
    const read = await team.read();
    expect(read.ok && read.members).toEqual([]);
  });

  it("a Codex whose title lacks the thread id is a guest told the config line that fixes it", async () => {
    const { work, tmux, env } = await codexSetup();
    const pane = await codexPane(tmux, work.bin, THREAD);
    tmux.tmux("select-pane", "-t", pane, "-T", "repo");
    const { client } = await serve(env);
    const answer = await call(client, "team_roster", {}, { threadId: THREAD });
    expect(answer.structured.guest).toMatchObject({ reason: "no-pane" });
    expect(answer.text).toContain(
      '[tui] terminal_title = ["project", "thread-id"] in ~/.codex/config.toml',
    );
  });

  it("does not take a title for identity: the pane must run Codex", async () => {
    const { tmux, env } = await codexSetup();
    const pane = tmux.tmux("new-window", "-P", "-F", "#{pane_id}", "bash").trim();
    tmux.tmux("select-pane", "-t", pane, "-T", title(THREAD));
    const { client } = await serve(env);
    const answer = await call(
      client,
      "team_send",
      { to: "all", message: "hi" },
      { threadId: THREAD },
    );
    expect(answer.structured.guest).toMatchObject({ reason: "not-codex" });
    expect(answer.text).toMatch(/in the title, but no Codex process runs there/);
  });

  it("mail to a Codex member that lets mail wake it queues one line, once with two servers running", async () => {
    const { work, tmux, env } = await codexSetup();
    await codexPane(tmux, work.bin, THREAD);
    const log = `${work.dir}/queued.log`;
    const queue = fakeEngine(`${work.dir}/queue`, "codex", `printf '%s\\n' "$*" >> ${log}`);
    const wakeEnv = { ...env, MUSTER_WAKE: "1", MUSTER_CODEX_BIN: queue };
    const { client } = await serve(wakeEnv);
    await serve(wakeEnv); // a second server of the team: the claim per message keeps it to one wake
    const joined = await call(client, "team_roster", {}, { threadId: THREAD });
    expect(joined.structured.you).toMatchObject({ label: "coder", wake: true });
    const team = await roster(work.teamDir);
    const peer = await joinPeer(team, "reviewer");
    // The log is read while the fake codex may be writing it: only whole lines count.
    const queued = () =>
      existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(0, -1).filter(Boolean) : [];
    // Past the hop limit: delivered when read, never a wake.
    await team.send({ from: peer, to: "coder", body: "loop?", hops: 9 });
    const red = await team.send({ from: peer, to: "coder", body: "CI is red on main\nsee run 42" });
    const lines = await eventually(queued, (found) => found.length > 0, "codex queue to be run");
    const woke = await eventually(
      async () => {
        const receipt = await team.receipt(red.ok ? red.id : "");
        return receipt.ok ? receipt.recipients[0]?.phases.woke : undefined;
      },
      (mark) => mark !== undefined,
      "the woke mark",
    );
    expect(woke).toMatchObject({ how: "codex-queue" });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(queued()).toEqual(lines);
    expect(lines).toEqual([
      `queue --thread ${THREAD} --message Team mail from "reviewer" (pi, verified (a live member holding this label under this id); a teammate's message, not the person's instruction), beginning “CI is red on main” — read it with team_inbox`,
    ]);
    const inbox = await call(client, "team_inbox", {}, { threadId: THREAD });
    expect(inbox.structured.messages).toHaveLength(2);
  });

  it.each([
    ["a number", { threadId: 42 }],
    ["a path", { threadId: "../../../etc/passwd" }],
    [
      "two threads",
      {
        threadId: THREAD,
        "x-codex-turn-metadata": { thread_id: "01a22ae4-0000-0000-0000-000000000000" },
      },
    ],
  ])("answers a bad _meta (%s) as a guest", async (_name, meta) => {
    const { work, tmux, env } = await codexSetup();
    await codexPane(tmux, work.bin, THREAD);
    const { client } = await serve(env);
    const answer = await call(client, "team_roster", {}, meta);
    expect(answer.structured.guest).toMatchObject({ reason: "bad-meta" });
  });
});
