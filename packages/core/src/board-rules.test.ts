import { describe, expect, it } from "vitest";
import { deadOwnerCards } from "./_board-view.js";
import {
  type BoardActor,
  type BoardChange,
  type BoardMember,
  type BoardMembers,
  type BoardView,
  boardFailureLine,
  type Card,
  decideChange,
  decideLead,
  ownerVerdict,
  releaseCard,
} from "./index.js";

const at = "2026-11-30T12:00:00.000Z";
const member = (
  label: string,
  state: BoardMember["state"] = "live",
  reason?: string,
): BoardMember => ({
  id: `${label}-id`,
  label,
  state,
  reason,
});
const alice: BoardActor = { label: "alice", id: "alice-id" };
const bob: BoardActor = { label: "bob", id: "bob-id" };
const team: BoardMembers = {
  members: [
    member("alice"),
    member("bob"),
    member("lead"),
    member("ghost", "gone", "process-dead"),
  ],
};
const card = (id: string, state: Card["state"], extra: Partial<Card> = {}): Card => ({
  id,
  title: `card ${id}`,
  deps: [],
  createdBy: "alice",
  createdAt: at,
  state,
  history: [{ at, event: "created", by: "alice" }],
  ...extra,
});
const heldBy = (actor: BoardActor) => ({ owner: { ...actor } });
const cards = [
  card("c1", "open"),
  card("c2", "held", heldBy(bob)),
  card("c3", "done", {
    history: [
      { at, event: "created", by: "alice" },
      { at, event: "finished", by: "bob" },
    ],
  }),
  card("c4", "open", { deps: ["c2", "c3", "c1"] }),
  card("c5", "held", heldBy(alice)),
  card("c6", "open", { createdBy: "bob" }),
];
const view = (overrides: Partial<BoardView> = {}): BoardView => ({
  cards: new Map(cards.map((each) => [each.id, each])),
  lead: "lead",
  members: team,
  at,
  ...overrides,
});

type Row = {
  case: string;
  actor?: BoardActor;
  change: BoardChange;
  board?: Partial<BoardView>;
  reason?: string;
  card?: Partial<Card>;
  notices?: { to: string; kind: string }[];
};

const rows: Row[] = [
  // add
  {
    case: "any member adds a card, open, with its creator",
    change: { kind: "add", id: "c7", title: " tidy ", deps: ["c1"] },
    card: { id: "c7", title: "tidy", state: "open", deps: ["c1"], createdBy: "alice" },
  },
  {
    case: "add refuses an empty title",
    change: { kind: "add", id: "c7", title: "" },
    reason: "bad-text",
  },
  {
    case: "add refuses a dependency on a card that is not there",
    change: { kind: "add", id: "c7", title: "t", deps: ["c70"] },
    reason: "unknown-dependency",
  },
  {
    case: "add refuses a dependency on itself",
    change: { kind: "add", id: "c7", title: "t", deps: ["c7"] },
    reason: "dependency-cycle",
  },
  {
    case: "add refuses a body with control characters",
    change: { kind: "add", id: "c7", title: "t", body: "\u001b]52;c;evil\u0007" },
    reason: "bad-text",
  },
  {
    case: "a session not on the team may not add",
    actor: { label: "eve", id: "eve-id" },
    change: { kind: "add", id: "c7", title: "t" },
    reason: "not-member",
  },
  {
    case: "a dead member may not add",
    actor: { label: "ghost", id: "ghost-id" },
    change: { kind: "add", id: "c7", title: "t" },
    reason: "not-member",
  },
  // claim
  {
    case: "claim an open card",
    change: { kind: "claim", card: "c1" },
    card: { state: "held", owner: { label: "alice", id: "alice-id" } },
  },
  {
    case: "claim one held by another: told who holds it",
    change: { kind: "claim", card: "c2" },
    reason: "card-held",
  },
  { case: "claim a done card", change: { kind: "claim", card: "3" }, reason: "card-done" },
  {
    case: "claim a blocked card: the lead hears",
    change: { kind: "claim", card: "c4" },
    reason: "card-blocked",
    notices: [{ to: "lead", kind: "blocked" }],
  },
  {
    case: "the lead claiming a blocked card is not told of it",
    actor: { label: "lead", id: "lead-id" },
    change: { kind: "claim", card: "c4" },
    reason: "card-blocked",
    notices: [],
  },
  {
    case: "claim a card not there",
    change: { kind: "claim", card: "c99" },
    reason: "unknown-card",
  },
  { case: "claim a bad id", change: { kind: "claim", card: "../../etc" }, reason: "bad-card-id" },
  // done
  {
    case: "finish a card you hold: the lead hears",
    change: { kind: "done", card: "c5", note: "merged" },
    card: { state: "done", owner: undefined, note: "merged" },
    notices: [{ to: "lead", kind: "finished" }],
  },
  {
    case: "finish a card you do not hold",
    change: { kind: "done", card: "c2" },
    reason: "not-holder",
  },
  { case: "finish an open card", change: { kind: "done", card: "c1" }, reason: "not-holder" },
  { case: "finish a done card", change: { kind: "done", card: "c3" }, reason: "card-done" },
  {
    case: "no lead, no notice",
    board: { lead: undefined },
    change: { kind: "done", card: "c5" },
    card: { state: "done" },
    notices: [],
  },
  // drop
  {
    case: "drop a card you hold, with a reason: the lead hears",
    change: { kind: "drop", card: "c5", reason: "waiting on review" },
    card: { state: "open", owner: undefined },
    notices: [{ to: "lead", kind: "dropped" }],
  },
  {
    case: "drop without a reason",
    change: { kind: "drop", card: "c5", reason: "  " },
    reason: "reason-needed",
  },
  {
    case: "drop a card another holds",
    change: { kind: "drop", card: "c2", reason: "mine now" },
    reason: "not-holder",
  },
  // hand-off
  {
    case: "hand off to a live label: the new owner hears",
    change: { kind: "handoff", card: "c5", to: "BOB", message: "yours" },
    card: { state: "held", owner: { label: "bob", id: "bob-id" } },
    notices: [{ to: "bob", kind: "handed-off" }],
  },
  {
    case: "hand off to a label with no live holder",
    change: { kind: "handoff", card: "c5", to: "ghost" },
    reason: "no-live-holder",
  },
  {
    case: "hand off to a label nobody has",
    change: { kind: "handoff", card: "c5", to: "nobody" },
    reason: "no-live-holder",
  },
  {
    case: "hand off when the roster cannot be read",
    board: { members: "unknown" },
    change: { kind: "handoff", card: "c5", to: "bob" },
    reason: "members-unknown",
  },
  {
    case: "hand off to yourself",
    change: { kind: "handoff", card: "c5", to: "alice" },
    reason: "handoff-self",
  },
  {
    case: "hand off a card you do not hold",
    change: { kind: "handoff", card: "c2", to: "alice" },
    reason: "not-holder",
  },
  // ask
  {
    case: "ask about a held card: its owner hears",
    change: { kind: "ask", card: "c2", question: "ETA?" },
    notices: [{ to: "bob", kind: "asked" }],
  },
  {
    case: "ask about an open card: its creator hears",
    change: { kind: "ask", card: "c6", question: "scope?" },
    notices: [{ to: "bob", kind: "asked" }],
  },
  {
    case: "ask about your own card you hold",
    change: { kind: "ask", card: "c5", question: "hm?" },
    reason: "nobody-to-ask",
  },
  {
    case: "ask an empty question",
    actor: bob,
    change: { kind: "ask", card: "c1", question: "" },
    reason: "bad-text",
  },
  {
    case: "ask one who is not live",
    board: { members: { members: [member("alice")] } },
    change: { kind: "ask", card: "c2", question: "?" },
    reason: "no-live-holder",
  },
];

describe("decideChange", () => {
  it.each(rows)("$case", (row) => {
    const board = view(row.board);
    const before = structuredClone([...board.cards.values()]);
    const decision = decideChange(board, row.actor ?? alice, row.change);
    if (row.reason) {
      expect(decision).toMatchObject({ ok: false, reason: row.reason });
      if (!decision.ok) {
        expect(decision.error.length).toBeGreaterThan(0);
        expect(decision.fix.length).toBeGreaterThan(0);
      }
    } else {
      expect(decision.ok).toBe(true);
      if (decision.ok && row.card) expect(decision.card).toMatchObject(row.card);
    }
    if (row.notices)
      expect(decision.notices.map(({ to, kind }) => ({ to, kind }))).toEqual(row.notices);
    // Nothing is ever changed in place: a refused change leaves the board as it was.
    expect([...board.cards.values()]).toEqual(before);
  });

  it("a refused hand-off leaves the card unchanged and sends nothing", () => {
    const board = view();
    const decision = decideChange(board, alice, { kind: "handoff", card: "c5", to: "ghost" });
    expect(decision).toMatchObject({ ok: false, reason: "no-live-holder", notices: [] });
    expect(board.cards.get("c5")).toEqual(card("c5", "held", heldBy(alice)));
  });

  it("claiming a card you already hold changes nothing", () => {
    const decision = decideChange(view(), alice, { kind: "claim", card: "c5" });
    expect(decision).toMatchObject({ ok: true, changed: false });
  });

  it("each change appends who did what to the history", () => {
    const board = view();
    const steps: [BoardActor, BoardChange, string][] = [
      [alice, { kind: "claim", card: "c1" }, "claimed"],
      [alice, { kind: "handoff", card: "c1", to: "bob" }, "handed-off"],
      [bob, { kind: "drop", card: "c1", reason: "too big" }, "dropped"],
      [alice, { kind: "claim", card: "c1" }, "claimed"],
      [alice, { kind: "done", card: "c1", note: "ok" }, "finished"],
    ];
    const cardsNow = new Map(board.cards);
    for (const [actor, change, event] of steps) {
      const decision = decideChange({ ...board, cards: cardsNow }, actor, change);
      if (!decision.ok) throw new Error(boardFailureLine(decision));
      expect(decision.card.history.at(-1)).toMatchObject({ event, by: actor.label });
      cardsNow.set("c1", decision.card);
    }
    expect(cardsNow.get("c1")?.history.map((entry) => entry.event)).toEqual([
      "created",
      "claimed",
      "handed-off",
      "dropped",
      "claimed",
      "finished",
    ]);
  });

  it("a blocked refusal names the blockers and who holds them", () => {
    const decision = decideChange(view(), alice, { kind: "claim", card: "c4" });
    expect(decision.ok ? "" : boardFailureLine(decision)).toBe(
      "Card c4 is blocked by c1, c2 (c2 held by bob); finish c1, c2 first, or claim one of them.",
    );
  });
});

describe("never held by the dead", () => {
  const held = card("c2", "held", heldBy(bob));
  it.each([
    { case: "live owner", members: { members: [member("bob")] }, keep: true },
    { case: "roster unknown: no evidence", members: "unknown" as const, keep: true },
    {
      case: "heartbeat stale, process not proven dead",
      members: { members: [member("bob", "gone", "heartbeat-stale")] },
      keep: true,
    },
    {
      case: "owner record unreadable",
      members: { members: [], unreadable: ["bob-id"] },
      keep: true,
    },
    {
      case: "process proven dead",
      members: { members: [member("bob", "gone", "process-dead")] },
      keep: false,
      reason: "owner-dead",
    },
    {
      case: "expired",
      members: { members: [member("bob", "expired", "past-ttl")] },
      keep: false,
      reason: "owner-expired",
    },
    {
      case: "left the team",
      members: { members: [member("alice")] },
      keep: false,
      reason: "owner-left",
    },
  ])("$case → keep $keep", ({ members, keep, reason }) => {
    const verdict = ownerVerdict(held, members);
    expect(verdict.keep).toBe(keep);
    if (reason) expect(verdict.reason).toBe(reason);
  });

  it("a released card is open, says why in its history, and the lead hears", () => {
    const verdict = ownerVerdict(held, { members: [member("bob", "gone", "process-dead")] });
    if (verdict.keep) throw new Error("expected a release");
    const released = releaseCard(held, verdict, "lead", at);
    expect(released.card).toMatchObject({ state: "open", owner: undefined });
    expect(released.card.history.at(-1)).toEqual({
      at,
      event: "released",
      by: "bob",
      note: "bob's process died",
    });
    expect(released.notices).toEqual([
      {
        to: "lead",
        kind: "released",
        card: "c2",
        body: 'c2 "card c2" is open again: bob\'s process died.',
      },
    ]);
  });

  it("deadOwnerCards picks only the held cards with owners proven gone", () => {
    const found = deadOwnerCards(cards, { members: [member("alice"), member("bob", "expired")] });
    expect(found.map((entry) => entry.card.id)).toEqual(["c2"]);
  });
});

describe("decideLead", () => {
  it.each([
    {
      case: "anyone names a lead when there is none",
      current: undefined,
      actor: alice,
      to: "Bob",
      answer: { ok: true, lead: "bob" },
    },
    {
      case: "the lead passes it on",
      current: "lead",
      actor: { label: "lead", id: "lead-id" },
      to: "alice",
      answer: { ok: true, lead: "alice" },
    },
    {
      case: "another may not take it from a live lead",
      current: "lead",
      actor: alice,
      to: "alice",
      answer: { ok: false, reason: "lead-held" },
    },
    {
      case: "a lead with no live holder may be replaced",
      current: "ghost",
      actor: alice,
      to: "alice",
      answer: { ok: true, lead: "alice" },
    },
    {
      case: "the lead clears it",
      current: "lead",
      actor: { label: "LEAD", id: "lead-id" },
      to: "none",
      answer: { ok: true, lead: undefined, changed: true },
    },
    {
      case: "the new lead must be live",
      current: undefined,
      actor: alice,
      to: "ghost",
      answer: { ok: false, reason: "no-live-holder" },
    },
    {
      case: "the roster cannot be read",
      current: undefined,
      actor: alice,
      to: "alice",
      members: "unknown" as const,
      answer: { ok: false, reason: "members-unknown" },
    },
  ])("$case", ({ current, actor, to, members, answer }) => {
    expect(decideLead(current, actor, to, members ?? team)).toMatchObject(answer);
  });
});

describe("a refusal's one line, as the person reads it", () => {
  it.each([
    {
      case: "a hand-off to a mistyped label names the live label it meant",
      decide: () => decideChange(view(), alice, { kind: "handoff", card: "c5", to: "bbo" }),
      line: /holds the label "bbo"; did you mean "bob"\?/,
    },
    {
      case: "a lead named by a mistyped label names the live label it meant",
      decide: () => decideLead(undefined, alice, "bbo", team),
      line: /holds the label "bbo"; did you mean "bob"\?/,
    },
    {
      case: "asking about your own card keeps your label as you spelled it",
      decide: () => decideChange(view(), alice, { kind: "ask", card: "c5", question: "hm?" }),
      line: /\balice\b/,
    },
    {
      case: "a hand-off to yourself keeps your label as you spelled it",
      decide: () => decideChange(view(), alice, { kind: "handoff", card: "c5", to: "alice" }),
      line: /\balice\b/,
    },
    {
      case: "a session not on the team keeps its label as it spelled it",
      decide: () =>
        decideChange(view(), { label: "eve", id: "eve-id" }, { kind: "add", id: "c7", title: "t" }),
      line: /\beve\b/,
    },
  ])("$case", ({ decide, line }) => {
    const decision = decide();
    expect(decision.ok).toBe(false);
    if (!decision.ok) expect(boardFailureLine(decision)).toMatch(line);
  });
});
