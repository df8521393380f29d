// When a whole-team view reads the team again: at once after a write in the team folder's
// sessions (a real folder, a real file watcher), else only once the rest scaled to the last
// reading's cost has passed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { teamChanges } from "./team-changes.ts";

const dir = mkdtempSync(path.join(tmpdir(), "muster-team-changes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("is due after a change in sessions, and otherwise after 50× the last reading's cost", async () => {
  mkdirSync(path.join(dir, "sessions"));
  const changes = teamChanges(dir);
  try {
    expect(changes.due(0)).toBe(true);
    changes.read(0, 400); // a reading that took 400 ms: a rest of 20 s
    expect(changes.due(10_000)).toBe(false);
    expect(changes.due(20_400)).toBe(true);
    changes.read(20_400, 20_410); // a cheap one: 2 s at least
    expect(changes.due(21_000)).toBe(false);
    writeFileSync(path.join(dir, "sessions", "a.json"), "{}");
    const until = Date.now() + 5000;
    let seen = changes.due(21_000);
    while (!seen && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = changes.due(21_000);
    }
    expect(seen).toBe(true);
    changes.read(21_000, 21_010);
    // The change was taken: not due again until the next one or the rest.
    expect(changes.due(21_100)).toBe(false);
  } finally {
    changes.close();
  }
});

it("without a folder (a NATS team) is due on the rest alone", () => {
  const changes = teamChanges(undefined);
  expect(changes.due(0)).toBe(true);
  changes.read(0, 10);
  expect(changes.due(1000)).toBe(false);
  expect(changes.due(2010)).toBe(true);
  changes.close();
});

it("reads the board again only after a change in it, or after several rests: not with every member reading", async () => {
  const team = path.join(dir, "board-team");
  mkdirSync(path.join(team, "board"), { recursive: true });
  const changes = teamChanges(team);
  try {
    expect(changes.due(0)).toBe(true);
    expect(changes.boardDue(0)).toBe(true);
    changes.read(0, 400, true); // the whole team, board too: a rest of 20 s
    expect(changes.due(20_400)).toBe(true);
    expect(changes.boardDue(20_400)).toBe(false);
    changes.read(20_400, 20_450, false); // the members alone: the rest stays the whole reading's
    expect(changes.due(30_000)).toBe(false);
    writeFileSync(path.join(dir, "board-team", "board", "c1.json"), "{}");
    const until = Date.now() + 5000;
    let seen = changes.boardDue(30_000);
    while (!seen && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = changes.boardDue(30_000);
    }
    expect(seen).toBe(true);
    changes.read(30_000, 30_400, true);
    expect(changes.boardDue(30_500)).toBe(false);
    // Without a change, the board is read again after BOARD_RESTS rests.
    expect(changes.boardDue(30_400 + 4 * 20_000)).toBe(false);
    expect(changes.boardDue(30_400 + 5 * 20_000)).toBe(true);
  } finally {
    changes.close();
  }
});
