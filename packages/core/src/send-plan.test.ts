import { describe, expect, it } from "vitest";
import { planSend, type SendMember, sendLabels } from "./index.js";

const member = (id: string, label: string, state = "live", holdsLabel = true): SendMember => ({
  id,
  label,
  state,
  holdsLabel,
});

const TEAM = [
  member("me", "lead"),
  member("r1", "reviewer"),
  member("w1", "writer"),
  member("g1", "ghost", "gone"),
  member("old", "writer", "gone", false),
];

describe("sendLabels: a door's `to` as labels", () => {
  it.each([
    ["a", ["a"]],
    ["a,b", ["a", "b"]],
    [" a , b ", ["a", "b"]],
    ["a,", ["a", ""]],
    [
      ["a", "b,c"],
      ["a", "b", "c"],
    ],
  ] as const)("%j → %j", (to, labels) => {
    expect(sendLabels(to)).toEqual(labels);
  });
});

describe("planSend: who one send reaches, decided before anything is written", () => {
  it.each([
    {
      name: "one label",
      labels: ["reviewer"],
      addresses: ["reviewer"],
      reached: ["r1"],
    },
    {
      name: "a label as the roster holds it, whatever the case typed",
      labels: ["REVIEWER"],
      addresses: ["reviewer"],
      reached: ["r1"],
    },
    {
      name: "repeats dropped, in any case",
      labels: ["reviewer", "writer", "Reviewer"],
      addresses: ["reviewer", "writer"],
      reached: ["r1", "w1"],
    },
    {
      name: "all and a label: each member once",
      labels: ["all", "reviewer"],
      addresses: ["all", "reviewer"],
      reached: ["r1", "w1"],
    },
  ])("$name", ({ labels, addresses, reached }) => {
    const plan = planSend(labels, TEAM, { id: "me" });
    expect(plan).toMatchObject({ ok: true, addresses });
    expect(plan.ok && plan.recipients.map((each) => each.id)).toEqual(reached);
    expect(plan.ok && plan.sender).toEqual({ id: "me", label: "lead", guest: false });
  });

  it.each([
    {
      name: "one typo among good labels sends nothing, and names the label",
      labels: ["reviewer", "writr"],
      refusal: { reason: "no-live-holder", label: "writr", suggestion: "writer" },
    },
    {
      name: "a label nobody is near is named without a suggestion",
      labels: ["reviewer", "zzzzzz"],
      refusal: { reason: "no-live-holder", label: "zzzzzz" },
      unnamed: true,
    },
    {
      name: "a gone holder is named with its state",
      labels: ["ghost"],
      refusal: {
        reason: "no-live-holder",
        label: "ghost",
        error: '"ghost" is gone; nothing was sent',
      },
    },
    {
      name: "oneself",
      labels: ["writer", "lead"],
      refusal: { reason: "to-self", label: "lead" },
    },
    {
      name: "an empty label",
      labels: ["reviewer", ""],
      refusal: { reason: "bad-input" },
    },
  ] as { name: string; labels: string[]; refusal: Record<string, string>; unnamed?: boolean }[])(
    "$name",
    ({ labels, refusal, unnamed }) => {
      const plan = planSend(labels, TEAM, { id: "me" });
      expect(plan).toMatchObject({ ok: false, ...refusal });
      if (!plan.ok && refusal.suggestion)
        expect(plan.fix).toBe(
          `did you mean "${refusal.suggestion}"? send to a label a live member holds (the roster lists them)`,
        );
      if (unnamed) expect(plan).not.toHaveProperty("suggestion");
    },
  );

  it("never suggests the sender's own label", () => {
    const plan = planSend(["lea"], TEAM, { id: "me" });
    expect(plan).toMatchObject({ ok: false, reason: "no-live-holder" });
    expect(plan).not.toHaveProperty("suggestion");
  });

  it("a sender off the team is refused, unless it sends as a guest", () => {
    expect(planSend(["reviewer"], TEAM, { id: "x" })).toMatchObject({ reason: "not-member" });
    expect(planSend(["all"], TEAM, { id: "x", guest: "pi" })).toMatchObject({
      ok: true,
      sender: { id: "x", label: "pi", guest: true },
      recipients: [{ id: "me" }, { id: "r1" }, { id: "w1" }],
    });
  });

  it("all with nobody else live is refused", () => {
    expect(planSend(["all"], [member("me", "lead")], { id: "me" })).toMatchObject({
      ok: false,
      reason: "no-recipients",
    });
  });
});
