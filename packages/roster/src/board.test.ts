import { describe, expect, it } from "vitest";
import {
  claim,
  drop,
  finish,
  handoff,
  newCard,
  ownerVerdict,
  release,
} from "../test/board-rules.js";
import { memoryFs } from "../test/memory-fs.js";
import { CLAIM_GRACE_MS } from "./_claim.js";
import { openRoster, type ProcessFact } from "./index.js";

const DIR = "/state/muster/teams/repo-abc";
const START = Date.parse("2026-11-30T12:00:00.000Z");

async function setup() {
  let now = START;
  const processes = new Map<number, ProcessFact>();
  const memory = memoryFs({ uid: 1000, now: () => now });
  const opened = await openRoster({
    dir: DIR,
    fs: memory.fs,
    clock: () => now,
    processes: { alive: (pid: number) => processes.get(pid) ?? "unknown" },
  });
  if (!opened.ok) throw new Error(opened.error);
  const roster = opened.roster;
  const board = roster.board({ ownerVerdict });
  const join = async (label: string, pid: number) => {
    processes.set(pid, "alive");
    const joined = await roster.join({
      id: `${label}-id`,
      label,
      agent: "test",
      pid,
      watching: { armed: true, wake: false },
      liveness: "process",
    });
    if (!joined.ok) throw new Error(joined.error);
    return { label, id: `${label}-id`, pid };
  };
  const add = async (title: string, by: { label: string; id: string }) => {
    const added = await board.add((snapshot, id) => newCard(snapshot, id, by, title));
    if (!added.ok) throw new Error(JSON.stringify(added));
    return added.card.id;
  };
  const card = (id: string) => memory.json(`${DIR}/board/${id}.json`);
  const claimFile = (id: string) => memory.json(`${DIR}/cards/${id}.json`);
  return {
    memory,
    processes,
    roster,
    board,
    join,
    add,
    card,
    claimFile,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("the board's files", () => {
  it("adds cards under c1, c2, … and reads them back", async () => {
    const team = await setup();
    const alice = await team.join("alice", 101);
    expect(await team.add("first", alice)).toBe("c1");
    expect(await team.add("second", alice)).toBe("c2");
    const read = await team.board.read();
    expect(read.ok && [...read.board.cards.keys()].sort()).toEqual(["c1", "c2"]);
    expect(team.card("c1")).toMatchObject({ v: 1, id: "c1", title: "first", state: "open" });
  });

  it("ten adds at once get ten different ids", async () => {
    const team = await setup();
    const alice = await team.join("alice", 101);
    const ids = await Promise.all(
      Array.from({ length: 10 }, (_, index) => team.add(`t${index}`, alice)),
    );
    expect(new Set(ids).size).toBe(10);
  });

  it("of many claims at once exactly one wins; the others are told who holds it", async () => {
    const team = await setup();
    const members = await Promise.all(
      Array.from({ length: 8 }, (_, index) => team.join(`m${index}`, 200 + index)),
    );
    const id = await team.add("contested", members[0]!);
    const answers = await Promise.all(
      members.map((member) =>
        team.board.change({
          card: id,
          actor: member.id,
          decide: (board) => claim(board, id, member),
          after: "keep",
        }),
      ),
    );
    const winners = answers.filter((answer) => answer.ok);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!.ok ? winners[0]!.card.owner : undefined;
    for (const loser of answers.filter((answer) => !answer.ok)) {
      expect(loser).toMatchObject({ reason: "card-held", holder: winner?.label });
    }
    expect(team.claimFile(id)).toMatchObject({ holder: winner?.id });
    expect(team.card(id)).toMatchObject({ state: "held", owner: winner });
  });

  it("done writes the card and releases the claim; a refused change writes nothing", async () => {
    const team = await setup();
    const alice = await team.join("alice", 101);
    const bob = await team.join("bob", 102);
    const id = await team.add("work", alice);
    await team.board.change({
      card: id,
      actor: alice.id,
      decide: (board) => claim(board, id, alice),
      after: "keep",
    });
    const before = team.memory.json(`${DIR}/board/${id}.json`);
    const refused = await team.board.change({
      card: id,
      actor: bob.id,
      decide: (board) => finish(board, id, bob),
      after: "release",
    });
    expect(refused).toMatchObject({ ok: false, reason: "not-holder" });
    expect(team.card(id)).toEqual(before);
    expect(team.claimFile(id)).toMatchObject({ holder: alice.id });
    const done = await team.board.change({
      card: id,
      actor: alice.id,
      decide: (board) => finish(board, id, alice),
      after: "release",
    });
    expect(done).toMatchObject({ ok: true });
    expect(team.card(id)).toMatchObject({ state: "done" });
    expect(team.claimFile(id)).toBeUndefined();
  });

  it("a hand-off passes the claim to the new owner, who can then finish", async () => {
    const team = await setup();
    const alice = await team.join("alice", 101);
    const bob = await team.join("bob", 102);
    const id = await team.add("work", alice);
    await team.board.change({
      card: id,
      actor: alice.id,
      decide: (board) => claim(board, id, alice),
      after: "keep",
    });
    const passed = await team.board.change({
      card: id,
      actor: alice.id,
      decide: (board) => handoff(board, id, alice, bob),
      after: { transfer: bob.id },
    });
    expect(passed).toMatchObject({ ok: true });
    expect(team.claimFile(id)).toMatchObject({ holder: bob.id });
    expect(team.card(id)).toMatchObject({ owner: { label: "bob", id: bob.id } });
    const done = await team.board.change({
      card: id,
      actor: bob.id,
      decide: (board) => finish(board, id, bob),
      after: "release",
    });
    expect(done).toMatchObject({ ok: true });
  });

  it("a card whose owner's process died is open on the next read, with the reason", async () => {
    const team = await setup();
    const alice = await team.join("alice", 101);
    const bob = await team.join("bob", 102);
    const id = await team.add("work", alice);
    await team.board.change({
      card: id,
      actor: bob.id,
      decide: (board) => claim(board, id, bob),
      after: "keep",
    });
    team.processes.set(bob.pid, "unknown");
    const kept = await team.board.read({ reader: alice.id, decide: release });
    expect(kept.ok && kept.board.cards.get(id)?.state).toBe("held");
    team.processes.set(bob.pid, "dead");
    const read = await team.board.read({ reader: alice.id, decide: release });
    expect(read.ok && read.released.map((each) => each.ok && each.card.id)).toEqual([id]);
    expect(team.card(id)).toMatchObject({ state: "open" });
    const history = (team.card(id)?.history ?? []) as { event: string; note: string }[];
    expect(history.at(-1)).toMatchObject({
      event: "released",
      note: "owner-dead",
    });
    expect(team.claimFile(id)).toBeUndefined();
    // Alice may claim it now.
    const claimed = await team.board.change({
      card: id,
      actor: alice.id,
      decide: (board) => claim(board, id, alice),
      after: "keep",
    });
    expect(claimed).toMatchObject({ ok: true });
  });

  it("a claim a crash left behind (the card never named its holder) is taken over after the grace", async () => {
    const team = await setup();
    const alice = await team.join("alice", 101);
    const bob = await team.join("bob", 102);
    const id = await team.add("work", alice);
    await team.memory.fs.writeFile(
      `${DIR}/cards/${id}.json`,
      `${JSON.stringify({ v: 1, key: id, holder: bob.id, at: new Date(START).toISOString(), token: "t1" })}\n`,
      0o600,
    );
    const early = await team.board.change({
      card: id,
      actor: alice.id,
      decide: (board) => claim(board, id, alice),
      after: "keep",
    });
    expect(early).toMatchObject({ ok: false, reason: "card-held", holder: "bob" });
    team.advance(CLAIM_GRACE_MS + 1);
    const late = await team.board.change({
      card: id,
      actor: alice.id,
      decide: (board) => claim(board, id, alice),
      after: "keep",
    });
    expect(late).toMatchObject({ ok: true });
    expect(team.claimFile(id)).toMatchObject({ holder: alice.id });
  });

  it("a drop opens the card and frees the claim for the next one", async () => {
    const team = await setup();
    const alice = await team.join("alice", 101);
    const bob = await team.join("bob", 102);
    const id = await team.add("work", alice);
    await team.board.change({
      card: id,
      actor: alice.id,
      decide: (board) => claim(board, id, alice),
      after: "keep",
    });
    await team.board.change({
      card: id,
      actor: alice.id,
      decide: (board) => drop(board, id, alice),
      after: "release",
    });
    const claimed = await team.board.change({
      card: id,
      actor: bob.id,
      decide: (board) => claim(board, id, bob),
      after: "keep",
    });
    expect(claimed).toMatchObject({ ok: true });
  });

  it.each([
    { case: "not JSON", name: "c5.json", text: "{half" },
    { case: "another id", name: "c5.json", text: JSON.stringify({ v: 1, id: "c6" }) },
    {
      case: "an owner while open",
      name: "c5.json",
      text: JSON.stringify({
        v: 1,
        id: "c5",
        title: "t",
        deps: [],
        createdBy: "a",
        createdAt: new Date(START).toISOString(),
        state: "open",
        owner: { label: "a", id: "a" },
        history: [],
      }),
    },
    {
      case: "a label with an escape",
      name: "c5.json",
      text: JSON.stringify({
        v: 1,
        id: "c5",
        title: "t",
        deps: [],
        createdBy: "a\u001b[2J",
        createdAt: new Date(START).toISOString(),
        state: "open",
        history: [],
      }),
    },
    {
      case: "a dependency that is a path",
      name: "c5.json",
      text: JSON.stringify({
        v: 1,
        id: "c5",
        title: "t",
        deps: ["../x"],
        createdBy: "a",
        createdAt: new Date(START).toISOString(),
        state: "open",
        history: [],
      }),
    },
    { case: "not a card name", name: "notes.txt", text: "hello" },
  ])("a hostile file ($case) is a named warning, never a card", async ({ name, text }) => {
    const team = await setup();
    await team.memory.fs.writeFile(`${DIR}/board/${name}`, text, 0o600);
    const read = await team.board.read();
    expect(read.ok && read.board.cards.size).toBe(0);
    expect(read.ok && read.board.warnings.join("\n")).toContain(`board/${name}`);
  });

  it("a new card never reuses the id of a file that does not parse", async () => {
    const team = await setup();
    const alice = await team.join("alice", 101);
    await team.memory.fs.writeFile(`${DIR}/board/c1.json`, "{half", 0o600);
    expect(await team.add("next", alice)).toBe("c2");
  });

  it("a planted file with the last id does not stop the board, nor steer its next ids", async () => {
    const team = await setup();
    const alice = await team.join("alice", 101);
    expect(await team.add("first", alice)).toBe("c1");
    await team.memory.fs.writeFile(`${DIR}/board/c999999999.json`, "{planted", 0o600);
    await team.memory.fs.writeFile(`${DIR}/board/c999999998.json`, "{planted", 0o600);
    expect(await team.add("second", alice)).toBe("c2");
    expect(await team.add("third", alice)).toBe("c3");
    // The planted files are still only warnings, never cards.
    const read = await team.board.read();
    expect(read.ok && [...read.board.cards.keys()].sort()).toEqual(["c1", "c2", "c3"]);
  });

  it("sets the lead under a lock, as the rule decides", async () => {
    const team = await setup();
    const alice = await team.join("alice", 101);
    const set = await team.board.setLead(alice, (lead) => ({
      ok: true,
      lead: "alice",
      changed: lead !== "alice",
    }));
    expect(set).toMatchObject({ ok: true, lead: "alice" });
    const read = await team.board.read();
    expect(read.ok && read.board.lead).toBe("alice");
    await team.board.setLead(alice, () => ({ ok: true, lead: undefined, changed: true }));
    const cleared = await team.board.read();
    expect(cleared.ok && cleared.board.lead).toBeUndefined();
  });

  it("a rule answering a card that would not parse back is refused, nothing written", async () => {
    const team = await setup();
    const alice = await team.join("alice", 101);
    const added = await team.board.add((board, id) => {
      const made = newCard(board, id, alice, "t");
      return made.ok ? { ...made, card: { ...made.card, createdBy: "bad label!" } } : made;
    });
    expect(added).toMatchObject({ ok: false, reason: "unwritable" });
    expect(team.card("c1")).toBeUndefined();
  });
});
