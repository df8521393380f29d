// The task board through MCP: the SDK's own client over stdio against the built server, a real team
// folder and real processes (fake engines: scripts named like them, so discovery recognises them).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { printable } from "@muster/core";
import { describe, expect, it } from "vitest";
import {
  call,
  cleanupAfterEach,
  connect,
  fakeEngine,
  joinPeer,
  roster,
  type Scratch,
  SERVE,
  scratchUntil,
} from "../test/helpers.ts";

const cleanups = cleanupAfterEach();

const setup = () => scratchUntil(cleanups);

/** A server started by its own fake Claude Code, so the caller is that engine, joined as `label`. */
async function member(work: Scratch, label: string) {
  const engine = fakeEngine(
    path.join(work.bin, label),
    "claude",
    `"${process.execPath}" "${SERVE}"`,
  );
  const connected = await connect(engine, [], {
    MUSTER_TEAM_DIR: work.teamDir,
    MUSTER_LABEL: label,
  });
  cleanups.push(() => connected.close());
  return connected.client;
}

/** A server with no engine above it and no Codex thread named: every call is a guest's. */
async function guest(work: Scratch) {
  const connected = await connect(process.execPath, [SERVE], { MUSTER_TEAM_DIR: work.teamDir });
  cleanups.push(() => connected.close());
  return connected.client;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;

type Card = { id: string; state: string; owner?: { label: string }; title: string };

describe("the board's tools", () => {
  it("are listed with descriptions written for a model", async () => {
    const work = setup();
    const { tools } = await (await guest(work)).listTools();
    const board = tools.filter((tool) =>
      /^team_(cards|card|add|claim|done|drop|handoff|ask|lead)$/.test(tool.name),
    );
    expect(board.map((tool) => tool.name).sort()).toEqual([
      "team_add",
      "team_ask",
      "team_card",
      "team_cards",
      "team_claim",
      "team_done",
      "team_drop",
      "team_handoff",
      "team_lead",
    ]);
    for (const tool of board) expect(tool.description?.length).toBeGreaterThan(120);
  });

  it("add, list with filters, show, claim, done, drop, hand off, ask and lead", async () => {
    const work = setup();
    const alice = await member(work, "alice");
    const bob = await member(work, "bob");

    const lead = await call(alice, "team_lead", { to: "alice" });
    expect(lead.text).toMatch(/^You joined the team as alice\.\nThe lead is alice:/);
    expect(lead.structured).toMatchObject({ ok: true, lead: "alice", changed: true });

    const first = await call(alice, "team_add", {
      title: "Fix the login redirect",
      body: "see src/auth",
    });
    expect(first.text).toBe("Added c1 [open] Fix the login redirect.");
    expect(first.structured.card).toMatchObject({ id: "c1", state: "open", body: "see src/auth" });
    const second = await call(alice, "team_add", { title: "Ship it", after: ["c1"] });
    expect(second.structured.card).toMatchObject({ id: "c2", deps: ["c1"] });

    const listed = await call(bob, "team_cards");
    expect(listed.text).toBe(
      "You joined the team as bob.\nLead: alice.\nc1 [open] Fix the login redirect\nc2 [blocked by c1] Ship it",
    );
    expect((listed.structured.cards as Card[]).map((card) => card.id)).toEqual(["c1", "c2"]);
    const ready = await call(bob, "team_cards", { state: "ready" });
    expect((ready.structured.cards as Card[]).map((card) => card.id)).toEqual(["c1"]);

    const claimed = await call(bob, "team_claim", { card: "c1" });
    expect(claimed.text).toBe("Claimed c1: Fix the login redirect");
    expect(claimed.structured).toMatchObject({
      ok: true,
      changed: true,
      card: { owner: { label: "bob" } },
    });
    expect((await call(bob, "team_claim", { card: "#1" })).text).toMatch(/^You already hold c1/);
    const mine = await call(bob, "team_cards", { mine: true });
    expect((mine.structured.cards as Card[]).map((card) => card.id)).toEqual(["c1"]);
    const byOwner = await call(alice, "team_cards", { owner: "BOB", state: "held" });
    expect((byOwner.structured.cards as Card[]).map((card) => card.id)).toEqual(["c1"]);

    const notYours = await call(alice, "team_done", { card: "c1" });
    expect(notYours.isError).toBe(true);
    expect(notYours.structured).toMatchObject({ ok: false, reason: "not-holder", holder: "bob" });
    expect(notYours.text).toMatch(
      /^Not finished: Card c1 is held by bob, not by alice; only bob can finish c1/,
    );

    const asked = await call(alice, "team_ask", { card: "c1", question: "which redirect?" });
    expect(asked.structured).toMatchObject({ ok: true, card: "c1", to: "bob" });
    const bobMail = await call(bob, "team_inbox");
    expect(bobMail.text).toContain('alice asks about c1 "Fix the login redirect": which redirect?');

    const handed = await call(bob, "team_handoff", {
      card: "c1",
      to: "alice",
      message: "yours now",
    });
    expect(handed.text).toBe("Handed c1 to alice; they have mail about it: Fix the login redirect");
    const dropped = await call(alice, "team_drop", { card: "c1", reason: "needs a design first" });
    expect(dropped.structured).toMatchObject({ ok: true, card: { state: "open" } });
    await call(bob, "team_claim", { card: "c1" });
    const done = await call(bob, "team_done", { card: "c1", note: "commit abc123" });
    expect(done.text).toBe("Finished c1; the lead is told: Fix the login redirect");

    const shown = await call(alice, "team_card", { card: "c1" });
    expect(shown.structured.card).toMatchObject({ state: "done", note: "commit abc123" });
    expect(
      shown.text
        .split("\n")
        .filter((line) => line.startsWith("- "))
        .map((line) => line.replace(/^- \S+ /, "")),
    ).toEqual([
      "created by alice",
      "claimed by bob",
      "handed-off by bob → alice: yours now",
      "dropped by alice: needs a design first",
      "claimed by bob",
      "finished by bob: commit abc123",
    ]);
    // The lead got the hand-off as mail, and the finish as a notice (its own drop told nobody).
    const leadMail = await call(alice, "team_inbox");
    expect(
      (leadMail.structured.messages as { body: string }[]).map((message) => message.body),
    ).toEqual([
      'bob handed c1 "Fix the login redirect" to you: yours now',
      'bob finished c1 "Fix the login redirect": commit abc123',
    ]);
    // c2 is unblocked now.
    expect((await call(bob, "team_claim", { card: "c2" })).structured).toMatchObject({ ok: true });
  });

  it("refuses a blocked card, naming what it waits on", async () => {
    const work = setup();
    const alice = await member(work, "alice");
    for (const title of ["one", "two", "three"]) await call(alice, "team_add", { title });
    await call(alice, "team_add", { title: "four", after: ["c3"] });
    const refused = await call(alice, "team_claim", { card: "c4" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^Not claimed: .*blocked by c3/);
    expect(refused.structured).toMatchObject({
      ok: false,
      reason: "card-blocked",
      blockers: ["c3"],
    });
    const card = JSON.parse(readFileSync(path.join(work.teamDir, "board", "c4.json"), "utf8"));
    expect(card.state).toBe("open");
  });

  it("two MCP clients race to claim each card: exactly one owner, the other told who", async () => {
    const work = setup();
    const alice = await member(work, "alice");
    const bob = await member(work, "bob");
    await call(bob, "team_roster"); // both on the team before the race
    for (let round = 1; round <= 5; round += 1) {
      await call(alice, "team_add", { title: `round ${round}` });
      const answers = await Promise.all([
        call(alice, "team_claim", { card: `c${round}` }),
        call(bob, "team_claim", { card: `c${round}` }),
      ]);
      const winners = answers.filter((answer) => !answer.isError);
      expect(winners).toHaveLength(1);
      const owner = (winners[0]?.structured.card as Card | undefined)?.owner?.label;
      expect(owner).toMatch(/^(alice|bob)$/);
      const loser = answers.find((answer) => answer.isError);
      expect(loser?.structured).toMatchObject({ reason: "card-held", holder: owner });
      expect(loser?.text).toContain(`held by ${owner}`);
      const file = JSON.parse(
        readFileSync(path.join(work.teamDir, "board", `c${round}.json`), "utf8"),
      );
      expect(file.owner.label).toBe(owner);
    }
  });

  it("a guest reads the board but changes nothing, told why", async () => {
    const work = setup();
    const team = await roster(work.teamDir);
    await joinPeer(team, "reviewer");
    const alice = await member(work, "alice");
    await call(alice, "team_add", { title: "work" });
    const outsider = await guest(work);
    const listed = await call(outsider, "team_cards");
    expect(listed.isError).toBe(false);
    expect(listed.text).toBe("No lead.\nc1 [open] work");
    expect(listed.structured.guest).toMatchObject({ reason: "no-engine" });
    for (const [tool, args] of [
      ["team_claim", { card: "c1" }],
      ["team_add", { title: "more" }],
      ["team_ask", { card: "c1", question: "what?" }],
      ["team_lead", { to: "reviewer" }],
    ] as const) {
      const refused = await call(outsider, tool, args);
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/^Not \w+: you are not on the team \(no coding agent among/);
      expect(refused.structured).toMatchObject({ ok: false, reason: "not-member" });
    }
    expect((await call(outsider, "team_cards", { mine: true })).isError).toBe(true);
    const card = JSON.parse(readFileSync(path.join(work.teamDir, "board", "c1.json"), "utf8"));
    expect(card.state).toBe("open");
    const read = await team.read();
    expect(read.ok && read.members.map((each) => each.label).sort()).toEqual(["alice", "reviewer"]);
  });

  it("a claim whose join is refused answers with the join's own line and fix", async () => {
    const work = setup();
    const alice = await member(work, "alice");
    await call(alice, "team_add", { title: "work" });
    const reserved = await member(work, "all");
    const refused = await call(reserved, "team_claim", { card: "c1" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(
      /^Not claimed: Could not join as "all": "all" is reserved for addressing; choose another label\.$/,
    );
    expect(refused.structured.guest).toMatchObject({ reason: "bad-label" });
    const card = JSON.parse(readFileSync(path.join(work.teamDir, "board", "c1.json"), "utf8"));
    expect(card.state).toBe("open");
  });

  it("a planted card with terminal escapes comes back printable in text and structured content", async () => {
    const work = setup();
    const alice = await member(work, "alice");
    await call(alice, "team_add", { title: "honest", body: "fine" });
    const file = path.join(work.teamDir, "board", "c1.json");
    const title = "evil \u001b]52;c;aGk=\u0007 \u001b[2J\u202e";
    const body = "line one\n\u001b[31mred\u001b[0m\r\u009b6n";
    const card = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...card, title, body }), { mode: 0o600 });

    const listed = await call(alice, "team_cards");
    expect(listed.text).not.toMatch(CONTROLS);
    expect(listed.text).toContain("c1 [open] evil \\x1b]52;c;aGk=\\x07 \\x1b[2J\\u202e");
    // Codex hands the structured content to its model: it hides and steers nothing either.
    expect((listed.structured.cards as Card[])[0]?.title).toBe(printable(title));

    const shown = await call(alice, "team_card", { card: "c1" });
    expect(shown.text).not.toMatch(CONTROLS);
    expect(shown.text).toContain("line one\n\\x1b[31mred\\x1b[0m\\r\\x9b6n");
    expect(shown.structured.card).toMatchObject({
      title: printable(title),
      body: printable(body, { lines: true }),
    });

    const claimed = await call(alice, "team_claim", { card: "c1" });
    expect(claimed.text).not.toMatch(CONTROLS);
    expect((claimed.structured.card as Card).title).toBe(printable(title));
  });
});
