// The MCP server through the SDK's own client, over stdio, against a real team folder, real
// processes and a private tmux server. The engines are stand-ins here (scripts named like them, so
// discovery recognises them); the real engines are driven in engines.test.ts. The Codex caller, named
// by _meta.threadId, is mcp-codex.test.ts.
import { spawn } from "node:child_process";
import path from "node:path";
import { TEAMMATE_NOTICE } from "@muster/core";
import { processStart } from "@muster/node";
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
      "team_diff",
      "team_done",
      "team_drop",
      "team_handoff",
      "team_inbox",
      "team_land",
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
    // The reviewer's engine said it waits for the person: the roster says so.
    const at = new Date().toISOString();
    await team.activity(peer, () => ({
      activity: { state: "needs-you", since: at, at, signal: "pi/ui-prompt-start" },
    }));

    const listed = await call(client, "team_roster");
    expect(listed.text).toMatch(/not on the team \(a guest\): no coding agent among/);
    expect(listed.text).toMatch(/- reviewer \([^,]+, needs-you/);
    expect(listed.structured.guest).toMatchObject({ reason: "no-engine" });
    expect(listed.structured.members).toEqual([
      expect.objectContaining({ label: "reviewer", you: false, activity: "needs-you" }),
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
    expect(first.text).toMatch(/- writer \(claude, starting.*← you/);
    const id = (first.structured.you as { id: string }).id;
    expect(id).toMatch(/^claude-\d+-\d+$/);
    const again = await call(client, "team_roster");
    expect(again.text).toMatch(/^You are writer\./); // asked once: seated now

    const sent = await call(client, "team_send", {
      to: ["reviewer", "all"],
      message: "review src/a.ts",
    });
    expect(sent.structured.recipients).toEqual([
      // Reached by two addresses, listed once (core's plan drops repeats).
      {
        label: "reviewer",
        ok: true,
        duplicate: false,
        id: peer,
        reach: "next-turn",
        activity: "starting",
      },
    ]);
    // What each is doing and so when it will see it, in core's words: the reviewer has not
    // reported yet, and listens without waking.
    expect(sent.text).toMatch(
      /^Sent \S+:\n {2}reviewer is starting: will see it at their next turn$/m,
    );
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
    expect(inbox.text).toContain(
      'Team mail from "reviewer": pi, verified (a live member holding this label under this id)',
    );
    expect(inbox.text).toContain(TEAMMATE_NOTICE);
    expect(inbox.text).toContain("> done\\x1b[2J, looks fine"); // quoted, shown, never acted on
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

  it("refuses a send with one label nobody holds whole: nothing is sent, the label named", async () => {
    const work = setup();
    const team = await roster(work.teamDir);
    const peer = await joinPeer(team, "reviewer");
    const claude = fakeEngine(work.bin, "claude", `"${process.execPath}" "${SERVE}"`);
    const { client } = await serve({ MUSTER_TEAM_DIR: work.teamDir }, claude, []);
    const sent = await call(client, "team_send", { to: ["nobody", "reviewer"], message: "hi" });
    expect(sent.isError).toBe(true);
    expect(sent.structured.recipients).toEqual([
      expect.objectContaining({ label: "nobody", ok: false, reason: "no-live-holder" }),
    ]);
    expect(sent.text).toMatch(/Nothing was sent\.\nNot sent to nobody: nobody holds the label/);
    const inbox = await team.receive(peer);
    expect(inbox.ok && inbox.messages).toEqual([]);
    // A label one slip away from a live member's is named, as the CLI names it (core's rule).
    const typo = await call(client, "team_send", { to: "reveiwer", message: "hi" });
    expect(typo.structured.recipients).toEqual([
      expect.objectContaining({ label: "reveiwer", ok: false, suggestion: "reviewer" }),
    ]);
    expect(typo.text).toContain('did you mean "reviewer"?');
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
    expect(sent.text).toContain("  waker is starting: will see it now (it wakes them)");
    expect(sent.text).toContain("  listener is starting: will see it at their next turn");
    expect(sent.text).toContain("  deaf is starting: will see it only when they read their inbox");
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
