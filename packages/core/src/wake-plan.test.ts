import { describe, expect, it } from "vitest";
import { DEFAULT_WAKE_POLICY } from "./index.js";
import {
  bookDone,
  bookSlotsTaken,
  bookWoke,
  EMPTY_WAKE_BOOK,
  planWake,
  type WakeBook,
  type WakePlanPolicy,
} from "./internal.js";

const NOW = 10_000_000;
const MINUTE = 60_000;
const wakes = { armed: true, wake: true };
const quiet = { armed: true, wake: false };
const off = { armed: false, wake: false };
const policy = (count: WakePlanPolicy["count"], nextTurn: boolean, maxWakes = 2) => ({
  ...DEFAULT_WAKE_POLICY,
  maxWakes,
  count,
  nextTurn,
});
const pi = policy("own", true);
const nudger = policy("own", false);
const codex = policy("shared", false);
const hook = policy("none", true);
const mail = (...ids: string[]) => ids.map((id) => ({ id }));
const steps = (plan: ReturnType<typeof planWake>) =>
  plan.steps.map((step) =>
    step.step === "hold"
      ? `${step.id} hold ${step.until - NOW}${step.mark ? " mark" : ""}`
      : `${step.id} ${step.step}${"reason" in step ? ` ${step.reason}` : ""}`,
  );
const book = (part: Partial<WakeBook>): WakeBook => ({ ...EMPTY_WAKE_BOOK, ...part });

describe("planWake: one round per member, each door's quirk a row", () => {
  it.each([
    {
      row: "a member that does not listen: nothing is handed over, by any door",
      messages: mail("a"),
      watching: off,
      book: EMPTY_WAKE_BOOK,
      policy: pi,
      expected: ["a skip not-listening"],
    },
    {
      row: "pi: quiet mail goes to the next turn",
      messages: mail("a"),
      watching: quiet,
      book: EMPTY_WAKE_BOOK,
      policy: pi,
      expected: ["a next-turn no-wake"],
    },
    {
      row: "Codex's queue and the nudger only wake: quiet mail stays in the mailbox",
      messages: mail("a"),
      watching: quiet,
      book: EMPTY_WAKE_BOOK,
      policy: codex,
      expected: ["a skip no-wake"],
    },
    {
      row: "pi counts its own wakes one per message: the third of three is held a window",
      messages: mail("a", "b", "c"),
      watching: wakes,
      book: EMPTY_WAKE_BOOK,
      policy: pi,
      expected: ["a wake", "b wake", `c hold ${MINUTE} mark`],
    },
    {
      row: "the nudger's own count holds past the rate too, from the wakes it booked",
      messages: mail("c"),
      watching: wakes,
      book: book({
        wakes: [
          { at: NOW - 10_000, messageId: "a" },
          { at: NOW - 5_000, messageId: "b" },
        ],
      }),
      policy: nudger,
      expected: [`c hold ${MINUTE - 10_000} mark`],
    },
    {
      row: "a hold already marked is not marked again; a new retryAfter is",
      messages: mail("c", "d"),
      watching: wakes,
      book: book({
        wakes: [
          { at: NOW - 10_000, messageId: "a" },
          { at: NOW - 5_000, messageId: "b" },
        ],
        held: { c: NOW + MINUTE - 10_000, d: NOW },
      }),
      policy: nudger,
      expected: [`c hold ${MINUTE - 10_000}`, `d hold ${MINUTE - 10_000} mark`],
    },
    {
      row: "Codex's shared slots: no own count, every message may wake (the wiring takes one slot a batch)",
      messages: mail("a", "b", "c"),
      watching: wakes,
      book: EMPTY_WAKE_BOOK,
      policy: codex,
      expected: ["a wake", "b wake", "c wake"],
    },
    {
      row: "Codex: while the slots' last hold lasts, waking mail is held till it ends, quiet mail not",
      messages: [{ id: "a" }, { id: "b", hops: 9 }],
      watching: wakes,
      book: book({ hold: { reason: "rate-limited", retryAfter: NOW + 7_000, words: "2 wakes" } }),
      policy: policy("shared", true),
      expected: ["a hold 7000 mark", "b next-turn hop-limit"],
    },
    {
      row: "Codex: a hold that is over asks for a slot again",
      messages: mail("a"),
      watching: wakes,
      book: book({ hold: { reason: "rate-limited", retryAfter: NOW, words: "2 wakes" } }),
      policy: codex,
      expected: ["a wake"],
    },
    {
      row: "Claude's hook counts no rate: it answers at a turn's edge",
      messages: mail("a", "b", "c"),
      watching: wakes,
      book: book({
        wakes: [
          { at: NOW - 1, messageId: "x" },
          { at: NOW - 2, messageId: "y" },
        ],
      }),
      policy: hook,
      expected: ["a wake", "b wake", "c wake"],
    },
    {
      row: "braked mail and mail past its hops never wake: the next turn, or left",
      messages: [
        { id: "a", braked: true },
        { id: "b", hops: 5 },
      ],
      watching: wakes,
      book: EMPTY_WAKE_BOOK,
      policy: nudger,
      expected: ["a skip loop-brake", "b skip hop-limit"],
    },
    {
      row: "a broadcast this door already woke for does not wake twice",
      messages: mail("a"),
      watching: wakes,
      book: book({ wakes: [{ at: NOW - 1, messageId: "a" }] }),
      policy: pi,
      expected: ["a next-turn already-woken"],
    },
    {
      row: "mail handed over already (the nudger's claimed, pi's waiting) is never planned again",
      messages: mail("a", "b"),
      watching: wakes,
      book: book({ done: ["a"] }),
      policy: nudger,
      expected: ["a skip done", "b wake"],
    },
  ])("$row", ({ messages, watching, book: before, policy: chosen, expected }) => {
    expect(steps(planWake(messages, watching, before, NOW, chosen))).toEqual(expected);
  });

  it("urgent mail steers, other mail follows", () => {
    const plan = planWake(
      [{ id: "a", urgent: true }, { id: "b" }],
      wakes,
      EMPTY_WAKE_BOOK,
      NOW,
      pi,
    );
    expect(plan.steps.map((step) => (step.step === "wake" ? step.mode : step.step))).toEqual([
      "steer",
      "follow-up",
    ]);
  });

  it("the book keeps only mail still unread: held marks and handed-over ids of mail read elsewhere go", () => {
    const before = book({ held: { gone: NOW + 1 }, done: ["gone", "kept"] });
    const plan = planWake(mail("kept"), wakes, before, NOW, pi);
    expect(plan.book.held).toEqual({});
    expect(plan.book.done).toEqual(["kept"]);
  });

  it("a held message's mark is booked with the plan: the next round does not mark it again", () => {
    const full = book({
      wakes: [
        { at: NOW - 1, messageId: "x" },
        { at: NOW - 2, messageId: "y" },
      ],
    });
    const first = planWake(mail("c"), wakes, full, NOW, pi);
    const second = planWake(mail("c"), wakes, first.book, NOW + 1_000, pi);
    expect(steps(first)).toEqual([`c hold ${MINUTE - 2} mark`]);
    expect(second.steps).toMatchObject([{ step: "hold", mark: false }]);
  });

  it("bookWoke counts one wake per message, drops their held marks and the slots' hold", () => {
    const before = book({
      held: { a: NOW, b: NOW },
      hold: { reason: "rate-limited", retryAfter: NOW, words: "" },
    });
    const after = bookWoke(before, ["a"], NOW, pi);
    expect(after.wakes).toEqual([{ at: NOW, messageId: "a" }]);
    expect(after.held).toEqual({ b: NOW });
    expect(after.hold).toBeUndefined();
  });

  it("bookSlotsTaken holds until the first slot frees; bookDone hands over once", () => {
    const held = bookSlotsTaken(EMPTY_WAKE_BOOK, [NOW - 20_000, NOW - 10_000], NOW, codex);
    expect(held.hold).toMatchObject({ retryAfter: NOW + MINUTE - 20_000 });
    expect(steps(planWake(mail("a"), wakes, held, NOW, codex))).toEqual([
      `a hold ${MINUTE - 20_000} mark`,
    ]);
    expect(bookDone(bookDone(EMPTY_WAKE_BOOK, ["a"]), ["a", "b"]).done).toEqual(["a", "b"]);
  });
});
