import { describe, expect, it } from "vitest";
import {
  type ActingRefusal,
  type ActingSteps,
  actAsMember,
  decideChange,
  MEMBER_USE,
  type MemberUse,
  membershipLine,
} from "./index.js";
import { asIfMember } from "./internal.js";

type Actor = { label: string };
const refusal = (reason: string): ActingRefusal => ({ ok: false, reason, error: reason });

/** The steps, each recording that it ran. */
function steps(
  member: Actor | undefined,
  answers: { check?: ActingRefusal; join?: ActingRefusal } = {},
): { steps: ActingSteps<Actor, string>; ran: string[] } {
  const ran: string[] = [];
  return {
    ran,
    steps: {
      member,
      check: async () => {
        ran.push("check");
        return answers.check;
      },
      join: async () => {
        ran.push("join");
        return answers.join ?? { ok: true, actor: { label: "shell-oak" } };
      },
      act: async (actor) => {
        ran.push(`act as ${actor.label}`);
        return "done";
      },
      notMember: () => {
        ran.push("not-member");
        return refusal("not-member");
      },
    },
  };
}

describe("actAsMember: the one identity rule", () => {
  it.each<MemberUse>(["acts", "holds", "reads-own"])(
    "a member %s at once: nothing joined, nothing checked beyond the act",
    async (use) => {
      const { steps: given, ran } = steps({ label: "carol" });
      expect(await actAsMember(use, given)).toEqual({
        ok: true,
        actor: { label: "carol" },
        joined: false,
        result: "done",
      });
      expect(ran).toEqual(["act as carol"]);
    },
  );

  it("a non-member of a command that acts: its input is checked, then it joins, then it acts", async () => {
    const { steps: given, ran } = steps(undefined);
    expect(await actAsMember("acts", given)).toMatchObject({ ok: true, joined: true });
    expect(ran).toEqual(["check", "join", "act as shell-oak"]);
  });

  it("a command refused on its input leaves nobody behind: no join, no act", async () => {
    const { steps: given, ran } = steps(undefined, { check: refusal("unknown-card") });
    expect(await actAsMember("acts", given)).toEqual(refusal("unknown-card"));
    expect(ran).toEqual(["check"]);
  });

  it("a refused join is the command's refusal: nothing acted", async () => {
    const { steps: given, ran } = steps(undefined, { join: refusal("label-held") });
    expect(await actAsMember("acts", given)).toEqual(refusal("label-held"));
    expect(ran).toEqual(["check", "join"]);
  });

  it.each<MemberUse>(["holds", "reads-own"])(
    "a non-member of a command that %s is refused: never joined, never checked",
    async (use) => {
      const { steps: given, ran } = steps(undefined);
      expect(await actAsMember(use, given)).toEqual(refusal("not-member"));
      expect(ran).toEqual(["not-member"]);
    },
  );

  it("the table: every command that acts, holds or reads its own", () => {
    expect(MEMBER_USE).toEqual({
      send: "acts",
      "board-add": "acts",
      "board-claim": "acts",
      "board-handoff": "acts",
      "board-ask": "acts",
      lease: "acts",
      "board-done": "holds",
      "board-drop": "holds",
      "board-lead": "holds",
      release: "holds",
      inbox: "reads-own",
    });
  });
});

describe("membershipLine: every join, leave and rename names the label", () => {
  it.each([
    [{ kind: "joined", label: "carol" } as const, "Joined the team as carol."],
    [
      { kind: "joined", label: "shell-oak", purpose: "to claim c1" } as const,
      "Joined the team as shell-oak to claim c1.",
    ],
    [
      { kind: "renamed", from: "shell-juniper", to: "carol" } as const,
      "Renamed shell-juniper to carol.",
    ],
    [{ kind: "left", label: "carol" } as const, "Left the team as carol."],
  ])("%j", (change, line) => {
    expect(membershipLine(change)).toBe(line);
  });
});

describe("asIfMember: a board change judged as by the member the caller would join as", () => {
  const card = {
    id: "c1",
    title: "work",
    state: "open" as const,
    createdBy: "alice",
    createdAt: "2026-12-01T00:00:00.000Z",
    deps: [],
    history: [],
  };
  const view = {
    cards: new Map([["c1", card]]),
    members: { members: [{ id: "a1", label: "alice", state: "live" as const }] },
    at: "2026-12-01T00:00:00.000Z",
  };
  const wouldBe = { label: "shell-oak", id: "s1" };

  it("a claim of a card that is there passes; one of a card that is not is refused as for anyone", () => {
    const seen = asIfMember(view, wouldBe);
    expect(decideChange(seen, wouldBe, { kind: "claim", card: "c1" })).toMatchObject({ ok: true });
    expect(decideChange(seen, wouldBe, { kind: "claim", card: "c9" })).toMatchObject({
      ok: false,
      reason: "unknown-card",
    });
    // Without it, anything is refused as "not a member": no judgement of the input at all.
    expect(decideChange(view, wouldBe, { kind: "claim", card: "c9" })).toMatchObject({
      reason: "not-member",
    });
  });

  it("a hand-off to a label nobody holds is refused; an unreadable roster stays unknown", () => {
    const seen = asIfMember(view, wouldBe);
    expect(
      decideChange(seen, wouldBe, { kind: "ask", card: "c1", question: "why?" }),
    ).toMatchObject({ ok: true, to: { label: "alice" } });
    expect(asIfMember({ ...view, members: "unknown" }, wouldBe).members).toBe("unknown");
  });
});
