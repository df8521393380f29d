// The MCP server through the SDK's own client, over stdio, against a real team folder, real
// processes and a private tmux server. The engines are stand-ins here (scripts named like them, so
// discovery recognises them); the real engines are driven in engines.test.ts.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { processStart } from "@muster/node";
import { eventually, startPrivateTmux } from "@muster/test-support";
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

async function serve(env: Record<string, string>, command = process.execPath, args = [SERVE]) {
  const connected = await connect(command, args, env);
  cleanups.push(() => connected.close());
  return connected;
}

describe("a guest (no engine above the server, no Codex thread named)", () => {
  it("lists the tools with descriptions for a model", async () => {
    const work = setup();
    const { client } = await serve({ MUSTER_TEAM_DIR: work.teamDir });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "team_add",
      "team_ask",
      "team_card",
      "team_cards",
      "team_claim",
      "team_done",
      "team_drop",
      "team_handoff",
      "team_inbox",
      "team_lead",
      "team_lease",
      "team_leases",
      "team_release",
      "team_roster",
      "team_send",
      "team_spawn",
    ]);
    for (const tool of tools) expect(tool.description?.length).toBeGreaterThan(80);
  });

  it("reads the roster, sends as a guest, and has no inbox, saying why each time", async () => {
    const work = setup();
    const team = await roster(work.teamDir);
    const peer = await joinPeer(team, "reviewer");
    const { client } = await serve({ MUSTER_TEAM_DIR: work.teamDir });

    const listed = await call(client, "team_roster");
    expect(listed.text).toMatch(/not on the team \(a guest\): no coding agent among/);
    expect(listed.structured.guest).toMatchObject({ reason: "no-engine" });
    expect(listed.structured.members).toEqual([
      expect.objectContaining({ label: "reviewer", you: false }),
    ]);

    const sent = await call(client, "team_send", { to: "reviewer", message: "hello from outside" });
    expect(sent.isError).toBe(false);
    const inbox = await team.receive(peer);
    expect(inbox.ok && inbox.messages.map((message) => [message.body, message.from.guest])).toEqual(
      [["hello from outside", true]],
    );

    const own = await call(client, "team_inbox");
    expect(own.isError).toBe(true);
    expect(own.text).toMatch(/A guest has no inbox/);
    // A guest never joins: the roster still has only the reviewer.
    const read = await team.read();
    expect(read.ok && read.members.map((member) => member.label)).toEqual(["reviewer"]);
  });
});

describe("path leases through MCP", () => {
  it("a member leases, a second is refused naming the holder, the list shows it, release frees it", async () => {
    const work = setup();
    const writer = fakeEngine(work.bin, "claude", `"${process.execPath}" "${SERVE}"`);
    const first = await serve(
      { MUSTER_TEAM_DIR: work.teamDir, MUSTER_LABEL: "writer" },
      writer,
      [],
    );
    const taken = await call(first.client, "team_lease", {
      paths: ["src/a.ts"],
      reason: "fixing a",
    });
    expect(taken.isError).toBe(false);
    expect(taken.text).toMatch(/^Leased src\/a\.ts until \d\d:\d\d\.$/);

    const other = fakeEngine(
      path.join(work.bin, "other"),
      "claude",
      `"${process.execPath}" "${SERVE}"`,
    );
    const second = await serve(
      { MUSTER_TEAM_DIR: work.teamDir, MUSTER_LABEL: "tester" },
      other,
      [],
    );
    const refused = await call(second.client, "team_lease", { paths: ["src/**"] });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/src\/\*\* overlaps src\/a\.ts, held by writer \(fixing a\)/);
    expect(refused.structured.leases).toEqual([
      { pattern: "src/**", ok: false, reason: "lease-held", holder: "writer" },
    ]);

    const listed = await call(second.client, "team_leases");
    expect(listed.structured.leases).toEqual([
      expect.objectContaining({ pattern: "src/a.ts", holder: "writer", reason: "fixing a" }),
    ]);
    expect((await call(first.client, "team_release", {})).text).toBe("Released src/a.ts.");
    expect((await call(second.client, "team_lease", { paths: ["src/**"] })).isError).toBe(false);
  });

  it("a guest cannot lease, and is told why", async () => {
    const work = setup();
    const { client } = await serve({ MUSTER_TEAM_DIR: work.teamDir });
    const refused = await call(client, "team_lease", { paths: ["src/a.ts"] });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^Not leased: you are not on the team \(/);
  });
});

describe("an engine that starts the server as its child", () => {
  it("is the member: joins on its first call under MUSTER_LABEL, sends, reads and acknowledges", async () => {
    const work = setup();
    const team = await roster(work.teamDir);
    const peer = await joinPeer(team, "reviewer");
    const claude = fakeEngine(work.bin, "claude", `"${process.execPath}" "${SERVE}"`);
    const { client } = await serve(
      { MUSTER_TEAM_DIR: work.teamDir, MUSTER_LABEL: "writer" },
      claude,
      [],
    );

    const first = await call(client, "team_roster");
    expect(first.text).toMatch(/^You joined the team as writer\./);
    expect(first.structured.you).toMatchObject({ label: "writer", joined: true });
    // The roster it answers is read after the join: the caller is on it, marked as itself.
    expect(first.structured.members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ label: "reviewer", you: false }),
        expect.objectContaining({ label: "writer", you: true }),
      ]),
    );
    expect(first.text).toMatch(/- writer \(claude, live.*← you/);
    const id = (first.structured.you as { id: string }).id;
    expect(id).toMatch(/^claude-\d+-\d+$/);
    const again = await call(client, "team_roster");
    expect(again.text).toMatch(/^You are writer\./); // asked once: seated now

    const sent = await call(client, "team_send", {
      to: ["reviewer", "all"],
      message: "review src/a.ts",
    });
    expect(sent.structured.recipients).toEqual([
      { label: "reviewer", ok: true, duplicate: false, id: peer, reach: "next-turn" },
      { label: "reviewer", ok: true, duplicate: true, id: peer, reach: "next-turn" },
    ]);
    // When each will see it, in core's words: the reviewer listens without waking.
    expect(sent.text).toMatch(/^Sent \S+:\n {2}reviewer: will see it at their next turn$/m);
    const got = await team.receive(peer);
    expect(got.ok && got.messages.map((message) => [message.from.label, message.body])).toEqual([
      ["writer", "review src/a.ts"],
    ]);

    const reply = await team.send({
      from: peer,
      to: "writer",
      body: "done\u001b[2J, looks fine",
      hops: 2,
    });
    expect(reply.ok).toBe(true);
    const inbox = await call(client, "team_inbox");
    expect(inbox.text).toContain("From reviewer");
    expect(inbox.text).toContain("done\\x1b[2J, looks fine"); // shown, never acted on
    expect(await team.unread(id)).toBe(0);
    const receipt = await team.receipt(reply.ok ? reply.id : "");
    expect(receipt.ok && receipt.recipients[0]?.phases).toMatchObject({
      delivered: { how: "mcp" },
      acknowledged: {},
    });
    expect((await call(client, "team_inbox")).text).toBe("No new mail.");

    // A reply travels one hop further than the message it answers.
    const replyId = reply.ok ? reply.id : "";
    await call(client, "team_send", { to: "reviewer", message: "thanks", reply_to: replyId });
    const answered = await team.receive(peer);
    expect(answered.ok && answered.messages.at(-1)).toMatchObject({ replyTo: replyId, hops: 3 });
  });

  it("reports a refused send per label and sends to the rest", async () => {
    const work = setup();
    const team = await roster(work.teamDir);
    await joinPeer(team, "reviewer");
    const claude = fakeEngine(work.bin, "claude", `"${process.execPath}" "${SERVE}"`);
    const { client } = await serve({ MUSTER_TEAM_DIR: work.teamDir }, claude, []);
    const sent = await call(client, "team_send", { to: ["nobody", "reviewer"], message: "hi" });
    expect(sent.structured.recipients).toEqual([
      expect.objectContaining({ label: "nobody", ok: false, reason: "no-live-holder" }),
      { label: "reviewer", ok: true, duplicate: false, id: expect.any(String), reach: "next-turn" },
    ]);
    expect(sent.text).toMatch(/Not sent to nobody: nobody holds the label/);
    const me = (sent.structured.you as { label: string }).label;
    expect(me).toMatch(/^claude-/);
    // Mail to oneself is never news: refused by the roster, with nothing written.
    const self = await call(client, "team_send", { to: me, message: "note to self" });
    expect(self.structured.recipients).toEqual([
      expect.objectContaining({ label: me, ok: false, reason: "to-self" }),
    ]);
    expect(self.text).toContain(`Not sent to ${me}: "${me}" is you; nothing was sent`);
  });
});

describe("team_send says when each recipient will see it", () => {
  it("now for one that mail wakes, next turn for one that only listens, inbox for one that does neither", async () => {
    const work = setup();
    const team = await roster(work.teamDir);
    const me = { pid: process.pid, pidStart: processStart(process.pid) };
    for (const [label, watching] of [
      ["waker", { armed: true, wake: true }],
      ["listener", { armed: true, wake: false }],
      ["deaf", { armed: false, wake: false }],
    ] as const) {
      const joined = await team.join({
        ...me,
        id: `peer-${label}`,
        label,
        agent: "pi",
        watching,
        liveness: "process",
      });
      expect(joined.ok).toBe(true);
    }
    const claude = fakeEngine(work.bin, "claude", `"${process.execPath}" "${SERVE}"`);
    const { client } = await serve({ MUSTER_TEAM_DIR: work.teamDir }, claude, []);
    const sent = await call(client, "team_send", { to: "all", message: "standup" });
    expect(sent.structured.recipients).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ label: "waker", reach: "wakes" }),
        expect.objectContaining({ label: "listener", reach: "next-turn" }),
        expect.objectContaining({ label: "deaf", reach: "not-pushed" }),
      ]),
    );
    expect(sent.text).toContain("  waker: will see it now (it wakes them)");
    expect(sent.text).toContain("  listener: will see it at their next turn");
    expect(sent.text).toContain("  deaf: will see it only when they read their inbox");
  });
});

describe("taking over a dead holder's label", () => {
  it("the first call joins as MUSTER_LABEL, held by a SIGKILLed session: its unread mail comes along, said so", async () => {
    const work = setup();
    const team = await roster(work.teamDir);
    await joinPeer(team, "reviewer");
    const dead = spawn("sleep", ["30"], { stdio: "ignore" });
    cleanups.push(() => dead.kill("SIGKILL"));
    const held = await team.join({
      id: "dead-lead",
      label: "lead",
      agent: "pi",
      pid: dead.pid!,
      pidStart: processStart(dead.pid!),
      watching: { armed: true, wake: false },
      liveness: "process",
    });
    expect(held.ok).toBe(true);
    expect((await team.send({ from: "reviewer", to: "lead", body: "for the lead" })).ok).toBe(true);
    dead.kill("SIGKILL");
    await new Promise((resolve) => dead.once("exit", resolve));
    const claude = fakeEngine(work.bin, "claude", `"${process.execPath}" "${SERVE}"`);
    const { client } = await serve(
      { MUSTER_TEAM_DIR: work.teamDir, MUSTER_LABEL: "lead" },
      claude,
      [],
    );
    const roll = await call(client, "team_roster");
    expect(roll.text).toContain(
      'You joined the team as lead; took over "lead" from a dead session; 1 unread message forwarded.',
    );
    expect((roll.structured.you as { took: unknown }).took).toEqual({
      from: "dead-lead",
      why: "dead",
      forwarded: 1,
    });
    const inbox = await call(client, "team_inbox");
    expect(inbox.text).toContain("for the lead");
  });
});

describe("Codex: the caller named by _meta.threadId", () => {
  const THREAD = "01a22ae4-26be-7480-acf3-78282d1c9f00";
  const title = (thread: string) => `repo | ${thread.slice(0, 29)}...`;

  function codexPane(tmux: ReturnType<typeof startPrivateTmux>, bin: string, thread: string) {
    const codex = fakeEngine(bin, "codex", "while :; do sleep 1; done");
    const pane = tmux.tmux("new-window", "-P", "-F", "#{pane_id}", `bash ${codex}`).trim();
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
    const pane = codexPane(tmux, work.bin, THREAD);
    const { client } = await serve(env);
    const meta = {
      threadId: THREAD,
      "x-codex-turn-metadata": { thread_id: THREAD, turn_id: "t1" },
    };
    const listed = await call(client, "team_roster", {}, meta);
    expect(listed.structured.you).toMatchObject({ label: "coder", id: `codex-${THREAD}`, pane });
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

  it("refuses a thread id two panes show, never guessing", async () => {
    const { work, tmux, env } = await codexSetup();
    const one = codexPane(tmux, work.bin, THREAD);
    const two = codexPane(tmux, work.bin, THREAD);
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
    const pane = codexPane(tmux, work.bin, THREAD);
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
    codexPane(tmux, work.bin, THREAD);
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
      `queue --thread ${THREAD} --message Team mail from reviewer: CI is red on main — read it with team_inbox`,
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
    codexPane(tmux, work.bin, THREAD);
    const { client } = await serve(env);
    const answer = await call(client, "team_roster", {}, meta);
    expect(answer.structured.guest).toMatchObject({ reason: "bad-meta" });
  });
});
