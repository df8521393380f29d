// The board on a real filesystem with real processes: an owner SIGKILLed while holding a card, a
// hand-off killed holding its lock, and a SIGKILL storm over mixed changes. Workers run the built
// package (test/board-worker.ts). Members racing for one card are the conformance suite's
// (internal/roster-conformance). MUSTER_LONG_TESTS=1 runs the issue's full counts.
import { type ChildProcess, spawn } from "node:child_process";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { nodeFs, processFacts } from "@muster/node";
import { lineQueue } from "@muster/test-support";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { claim, newCard, ownerVerdict, release } from "../test/board-rules.js";
import { parseCard } from "./_card-file.js";
import { type CardHistoryEntry, openRoster } from "./index.js";

const LONG = process.env.MUSTER_LONG_TESTS === "1";
const WORKER = path.join(import.meta.dirname, "..", "test", "board-worker.ts");
const scratch = mkdtempSync(path.join(tmpdir(), "muster-board-"));
const children = new Set<ChildProcess>();
let teams = 0;
const newTeam = () => {
  teams += 1;
  return path.join(scratch, `team-${teams}`);
};

afterEach(() => {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function worker(args: string[]) {
  const child = spawn(process.execPath, [WORKER, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  children.add(child);
  const queue = lineQueue(child.stdout!);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, lines: queue.lines, exited, next: queue.next };
}

const tester = { label: "tester", id: "tester" };

async function open(dir: string) {
  const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: processFacts });
  if (!opened.ok) throw new Error(opened.error);
  const roster = opened.roster;
  return { roster, board: roster.board({ ownerVerdict }) };
}

async function addCard(board: Awaited<ReturnType<typeof open>>["board"], title: string) {
  const added = await board.add((now, id) => newCard(now, id, tester, title));
  if (!added.ok) throw new Error(JSON.stringify(added));
  return added.card.id;
}

/** Replay a card's history: each step must be one the card's state allowed, by its holder. */
function replay(history: readonly CardHistoryEntry[]): string | undefined {
  let state = "open";
  let holder: string | undefined;
  for (const [index, entry] of history.entries()) {
    const bad = () =>
      `entry ${index} (${entry.event} by ${entry.by}) while ${state}${holder ? ` by ${holder}` : ""}`;
    if (entry.event === "created") {
      if (index !== 0) return bad();
    } else if (entry.event === "claimed") {
      if (state !== "open") return bad();
      state = "held";
      holder = entry.by;
    } else {
      if (state !== "held" || entry.by !== holder) return bad();
      if (entry.event === "handed-off") holder = entry.to;
      else {
        state = entry.event === "finished" ? "done" : "open";
        holder = undefined;
      }
    }
  }
  return undefined;
}

describe("never held by the dead", () => {
  it("an owner SIGKILLed with a card held: the card is open on the next read, with the reason", async () => {
    const dir = newTeam();
    const { board } = await open(dir);
    const card = await addCard(board, "work");
    const holder = worker(["hold", dir, "holder", card]);
    expect(await holder.next()).toBe("held");
    const before = await board.read({ reader: tester.id, decide: release });
    expect(before.ok && before.board.cards.get(card)?.state).toBe("held");
    holder.child.kill("SIGKILL");
    await holder.exited;
    const after = await board.read({ reader: tester.id, decide: release });
    expect(after.ok && after.board.cards.get(card)).toMatchObject({
      state: "open",
      owner: undefined,
    });
    expect(after.ok && after.board.cards.get(card)?.history.at(-1)).toMatchObject({
      event: "released",
      by: "holder",
      note: "owner-dead",
    });
    // And anyone may claim it at once.
    const roster = (await open(dir)).roster;
    await roster.join({
      id: "taker",
      label: "taker",
      agent: "test",
      pid: process.pid,
      watching: { armed: false, wake: false },
      liveness: "process",
    });
    const taken = await board.change({
      card,
      actor: "taker",
      decide: (now) => claim(now, card, { label: "taker", id: "taker" }),
      after: "keep",
    });
    expect(taken).toMatchObject({ ok: true });
  });
});

describe("a lock left by a killed process", () => {
  // What the 80-kill storm found: a hand-off wrote the card (the new owner named) and was killed
  // holding the lock of the card's claim, before passing the claim on. Both are dead; the lock was
  // only breakable by age (5 s), so a read in between gave up "busy" and left the card held.
  it("a hand-off killed holding the card's claim lock: the next read opens the card at once", async () => {
    const dir = newTeam();
    const { board } = await open(dir);
    const card = await addCard(board, "handed");
    const other = await addCard(board, "kept busy");
    const receiver = worker(["hold", dir, "receiver", other]);
    expect(await receiver.next()).toBe("held");
    const giver = worker(["stall", dir, "giver", card, "receiver"]);
    expect(await giver.next()).toBe("held");
    expect(await giver.next()).toBe("locked");
    const lock = path.join(dir, "locks", `cards.${card}.lock`);
    expect(JSON.parse(readFileSync(lock, "utf8"))).toMatchObject({ holder: "giver" });
    expect(JSON.parse(readFileSync(path.join(dir, "board", `${card}.json`), "utf8"))).toMatchObject(
      { state: "held", owner: { id: "receiver" } },
    );
    for (const each of [giver, receiver]) each.child.kill("SIGKILL");
    await Promise.all([giver.exited, receiver.exited]);

    const read = await board.read({ reader: tester.id, decide: release });
    expect(read.ok && [card, other].map((id) => read.board.cards.get(id)?.state)).toEqual([
      "open",
      "open",
    ]);
    expect(read.ok && read.board.cards.get(card)?.history.at(-1)).toMatchObject({
      event: "released",
      by: "receiver",
      note: "owner-dead",
    });
  });
});

describe("prune and the board's folders", () => {
  it("clears old leftovers of interrupted writes in board/ and cards/, and nothing else, byte for byte", async () => {
    const dir = newTeam();
    const { board } = await open(dir);
    await addCard(board, "kept");
    const outside = mkdtempSync(path.join(scratch, "outside-"));
    const secret = path.join(outside, "secret.txt");
    writeFileSync(secret, "not muster's\n");
    const leftover = (folder: string, name: string) => {
      writeFileSync(path.join(dir, folder, name), '{"v":1,"id":"c');
      return `${folder}/${name}`;
    };
    const cleared = [
      leftover("board", ".mx3mgw7s-000i-12pnjunoqkxj.tmp"),
      leftover("cards", ".mx3mgw7s-000j-0a0b0c0d0e0f.tmp"),
    ];
    const planted: Record<string, string> = {
      "board/notes.md": "my own notes\n",
      "board/.notes.tmp": "an editor's swap file\n",
      "board/c1.json": readFileSync(path.join(dir, "board", "c1.json"), "utf8"),
    };
    for (const [name, text] of Object.entries(planted)) writeFileSync(path.join(dir, name), text);
    symlinkSync(secret, path.join(dir, "board", ".mx3mgw7s-000k-aaaaaaaaaaaa.tmp"));
    const untouched = () => ({
      secret: readFileSync(secret, "utf8"),
      ...Object.fromEntries(
        Object.keys(planted).map((name) => [name, readFileSync(path.join(dir, name), "utf8")]),
      ),
    });
    const before = { secret: "not muster's\n", ...planted };

    // A write in progress is left alone: nothing is old yet.
    const now = await (await open(dir)).roster.prune();
    expect(now.ok && now.cleared).toEqual([]);
    const later = await openRoster({
      dir,
      fs: nodeFs,
      clock: () => Date.now() + 11_000,
      processes: processFacts,
    });
    if (!later.ok) throw new Error(later.error);
    const pruned = await later.roster.prune();
    expect(pruned.ok && pruned.cleared.sort()).toEqual(cleared.sort());
    expect(untouched()).toEqual(before);
    expect(readdirSync(path.join(dir, "board")).sort()).toEqual([
      ".mx3mgw7s-000k-aaaaaaaaaaaa.tmp",
      ".notes.tmp",
      "c1.json",
      "notes.md",
    ]);
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });
});

describe("a SIGKILL storm", () => {
  const kills = LONG ? 80 : 10;
  it(`mixed add/claim/done/drop/handoff, ${kills} members SIGKILLed mid-change: every card file parses, no card has two owners`, async () => {
    const dir = newTeam();
    const { board } = await open(dir);
    const written: { op: string; card: string; base: string; by: string }[] = [];
    let spawned = 0;
    let killed = 0;
    const running = new Set<{ child: ChildProcess; exited: Promise<void> }>();
    const start = () => {
      spawned += 1;
      const child = spawn(process.execPath, [WORKER, "chaos", dir, `chaos-${spawned}`], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      children.add(child);
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      const entry = { child, exited };
      running.add(entry);
      let doomed = false;
      createInterface({ input: child.stdout! }).on("line", (line) => {
        if (!line.startsWith('{"op"')) return;
        written.push(JSON.parse(line));
        // Once it has made a change, kill it at a random moment of its next ones.
        if (doomed) return;
        doomed = true;
        setTimeout(() => {
          child.kill("SIGKILL");
          killed += 1;
        }, Math.random() * 200);
      });
      void exited.then(() => {
        running.delete(entry);
        if (killed < kills) start();
      });
    };
    for (let index = 0; index < 4; index += 1) start();
    const until = Date.now() + 60_000;
    const changes = () => written.filter((entry) => entry.base !== "new").length;
    while ((killed < kills || changes() < 12) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const last = [...running];
    for (const each of last) each.child.kill("SIGKILL");
    await Promise.all(last.map((each) => each.exited));
    expect(killed).toBeGreaterThanOrEqual(kills);

    const names = readdirSync(path.join(dir, "board")).filter((name) => !name.startsWith("."));
    expect(names.length).toBeGreaterThan(3);
    for (const name of names.filter((each) => each !== "lead.json")) {
      const parsed = parseCard(
        readFileSync(path.join(dir, "board", name), "utf8"),
        name.replace(/\.json$/, ""),
      );
      expect(parsed.ok ? "" : `${name} ${parsed.error}`).toBe("");
      if (parsed.ok && parsed.value.history.length < 150)
        expect([name, replay(parsed.value.history)]).toEqual([name, undefined]);
    }
    // Two writers both told ok over one version of a card is two owners.
    const bases = written
      .filter((entry) => entry.base !== "new")
      .map((entry) => `${entry.card} ${entry.base}`);
    expect(bases.length).toBeGreaterThanOrEqual(12);
    expect(bases.length - new Set(bases).size).toBe(0);
    // Every worker is dead now: the next read opens every card they held.
    const read = await board.read({ reader: tester.id, decide: release });
    expect(read.ok && read.board.warnings).toEqual([]);
    expect(
      read.ok && [...read.board.cards.values()].filter((card) => card.state === "held"),
    ).toEqual([]);
  }, 90_000);
});
