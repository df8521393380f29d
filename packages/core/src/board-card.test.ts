import { describe, expect, it } from "vitest";
import { appendHistory, checkText, checkTitle, MAX_HISTORY, nextCardId } from "./_board-card.js";
import { blockers, checkDependencies, findCycle } from "./_board-deps.js";
import { type Card, type CardHistoryEntry, listCards, parseCardId } from "./index.js";

const at = "2026-11-30T12:00:00.000Z";
const card = (id: string, state: Card["state"], deps: string[] = [], owner?: string): Card => ({
  id,
  title: `card ${id}`,
  deps,
  createdBy: "alice",
  createdAt: at,
  state,
  owner: owner ? { label: owner, id: `${owner}-id` } : undefined,
  history: [{ at, event: "created", by: "alice" }],
});
const board = (...cards: Card[]) => new Map(cards.map((each) => [each.id, each]));

describe("card ids", () => {
  it.each([
    { typed: "c12", id: "c12" },
    { typed: "C12", id: "c12" },
    { typed: "#12", id: "c12" },
    { typed: "12", id: "c12" },
    { typed: " c7 ", id: "c7" },
  ])("$typed is $id", ({ typed, id }) => {
    expect(parseCardId(typed)).toEqual({ ok: true, id });
  });

  it.each(["", "c", "c0", "c012", "cc12", "c-1", "c1.5", "../c1", "c1/../x", "c1234567890", "x12"])(
    "%j is refused with a fix",
    (typed) => {
      const parsed = parseCardId(typed);
      expect(parsed).toMatchObject({ ok: false, reason: "bad-card-id" });
      expect(parsed.ok ? "" : parsed.fix).toContain("c12");
    },
  );

  it.each([
    { ids: [], next: "c1" },
    { ids: ["c1", "c2"], next: "c3" },
    { ids: ["c9", "c2", "c10"], next: "c11" },
    { ids: ["c3", "junk", "c0", "../c99"], next: "c4" },
  ])("after $ids comes $next", ({ ids, next }) => {
    expect(nextCardId(ids)).toBe(next);
  });
});

describe("text on a card", () => {
  it.each([
    { title: "  fix the login redirect ", ok: true },
    { title: "", ok: false },
    { title: "   ", ok: false },
    { title: "two\nlines", ok: false },
    { title: "escape \u001b[2J", ok: false },
    { title: "bidi \u2028 separator", ok: false },
    { title: "x".repeat(200), ok: true },
    { title: "x".repeat(201), ok: false },
  ])("title $title.length chars → ok $ok", ({ title, ok }) => {
    const checked = checkTitle(title);
    expect(checked.ok).toBe(ok);
    if (checked.ok) expect(checked.text).toBe(title.trim());
    else expect(checked.fix.length).toBeGreaterThan(0);
  });

  it.each([
    { text: "line one\n\tline two", ok: true },
    { text: "bell \u0007", ok: false },
    { text: "csi \u009b", ok: false },
    { text: "x".repeat(20), ok: true },
    { text: "x".repeat(21), ok: false },
  ])("note %# → ok $ok", ({ text, ok }) => {
    expect(checkText("note", text, 20).ok).toBe(ok);
  });
});

describe("history", () => {
  it("keeps the first entry and the latest ones", () => {
    let history: CardHistoryEntry[] = [{ at, event: "created", by: "alice" }];
    for (let index = 0; index < MAX_HISTORY + 10; index += 1) {
      history = appendHistory(history, { at, event: "claimed", by: `m${index}` });
    }
    expect(history).toHaveLength(MAX_HISTORY + 1);
    expect(history[0]?.event).toBe("created");
    expect(history.at(-1)?.by).toBe(`m${MAX_HISTORY + 9}`);
  });
});

describe("dependencies", () => {
  const cards = board(
    card("c1", "done"),
    card("c2", "open", ["c1"]),
    card("c3", "held", [], "bob"),
  );

  it.each([
    {
      case: "known cards, typed loosely, listed once",
      deps: ["c1", "#3", "C1"],
      answer: { ok: true, deps: ["c1", "c3"] },
    },
    { case: "none", deps: [], answer: { ok: true, deps: [] } },
    {
      case: "a card that is not there",
      deps: ["c9"],
      answer: { ok: false, reason: "unknown-dependency" },
    },
    { case: "not a card id", deps: ["../c1"], answer: { ok: false, reason: "bad-card-id" } },
    { case: "itself", deps: ["c4"], answer: { ok: false, reason: "dependency-cycle" } },
  ])("$case", ({ deps, answer }) => {
    expect(checkDependencies(cards, "c4", deps)).toMatchObject(answer);
  });

  it("refuses a card that would depend on a circle already on the board", () => {
    const edited = board(
      card("c1", "open", ["c2"]),
      card("c2", "open", ["c3"]),
      card("c3", "open", ["c1"]),
    );
    const refused = checkDependencies(edited, "c4", ["c2"]);
    expect(refused).toMatchObject({ ok: false, reason: "dependency-cycle" });
    expect(refused.ok ? "" : refused.error).toContain("c2 → c3 → c1 → c2");
  });

  it.each([
    {
      graph: [
        ["a", ["b"]],
        ["b", ["c"]],
        ["c", []],
      ],
      from: "a",
      cycle: undefined,
    },
    {
      graph: [
        ["a", ["b", "c"]],
        ["b", ["d"]],
        ["c", ["d"]],
        ["d", []],
      ],
      from: "a",
      cycle: undefined,
    },
    { graph: [["a", ["a"]]], from: "a", cycle: ["a", "a"] },
    {
      graph: [
        ["a", ["b"]],
        ["b", ["a"]],
      ],
      from: "a",
      cycle: ["a", "b", "a"],
    },
    {
      graph: [
        ["x", ["a"]],
        ["a", ["b"]],
        ["b", ["a"]],
      ],
      from: "x",
      cycle: ["a", "b", "a"],
    },
    { graph: [["a", ["missing"]]], from: "a", cycle: undefined },
  ] as { graph: [string, string[]][]; from: string; cycle: string[] | undefined }[])(
    "findCycle from $from → $cycle",
    ({ graph, from, cycle }) => {
      expect(findCycle(new Map(graph.map(([id, deps]) => [id, { deps }])), from)).toEqual(cycle);
    },
  );

  it("walks a chain of 50,000 cards without overflowing the stack", () => {
    const graph = new Map<string, { deps: string[] }>();
    for (let index = 0; index < 50_000; index += 1)
      graph.set(`c${index + 1}`, { deps: [`c${index + 2}`] });
    graph.set("c50001", { deps: ["c1"] });
    expect(findCycle(graph, "c1")?.length).toBe(50_002);
  });

  it("a card is blocked by every dependency not done, a missing one too", () => {
    const cards = board(card("c1", "done"), card("c2", "held", [], "bob"), card("c3", "open"));
    expect(blockers({ deps: ["c10", "c3", "c2", "c1"] }, cards)).toEqual(["c2", "c3", "c10"]);
  });
});

describe("listCards", () => {
  const cards = board(
    card("c10", "open"),
    card("c2", "held", [], "Bob"),
    card("c3", "done"),
    card("c4", "open", ["c2"]),
    card("c1", "open", ["c3"]),
  );
  it.each([
    { filter: {}, ids: ["c1", "c2", "c4", "c10"] },
    { filter: { state: "all" as const }, ids: ["c1", "c2", "c3", "c4", "c10"] },
    { filter: { state: "held" as const }, ids: ["c2"] },
    { filter: { state: "done" as const }, ids: ["c3"] },
    { filter: { state: "ready" as const }, ids: ["c1", "c10"] },
    { filter: { state: "blocked" as const }, ids: ["c4"] },
    { filter: { owner: "bob" }, ids: ["c2"] },
    { filter: { owner: "carol" }, ids: [] },
  ])("$filter → $ids", ({ filter, ids }) => {
    expect(listCards(cards, filter).map((each) => each.id)).toEqual(ids);
  });

  it("names what blocks each open card", () => {
    expect(listCards(cards).find((each) => each.id === "c4")?.blockers).toEqual(["c2"]);
  });
});
