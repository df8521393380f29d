import { describe, expect, it } from "vitest";
import type { ActivityState } from "./_activity.js";
import { chooseGo } from "./_go.js";
import { localeSpeaksUtf8 } from "./_locale.js";
import { type LineMember, teamLine, waitingForYou } from "./_team-line.js";

/** A state that has lasted `ageMs` (null: not known). */
const view = (state: ActivityState, ageMs: number | null = null) => ({ state, ageMs });
const member = (
  label: string,
  activity: ReturnType<typeof view>,
  extra: Partial<LineMember> = {},
) => ({
  label,
  activity,
  unread: 0,
  person: false,
  seat: { server: "/tmp/tmux-0/default", pane: `%${label.length}` },
  ...extra,
});

const team = [
  member("alice", view("working", 5)),
  member("bob", view("needs-you", 10)),
  member("carol", view("needs-you", 30)),
  member("dave", view("idle", 1)),
  member("erin", view("starting", 1)),
  member("frank", view("needs-you")),
  member("me", view("unknown"), { person: true, unread: 3 }),
  member("gus", view("working", 1), { unread: 7 }),
];

describe("the team in one line", () => {
  it("counts, who waits longest, and the person's mail", () => {
    expect(teamLine(team)).toEqual({
      working: 2,
      idle: 1,
      starting: 1,
      needsYou: [
        { label: "carol", ageMs: 30 },
        { label: "bob", ageMs: 10 },
        { label: "frank", ageMs: null },
      ],
      mail: 3,
    });
  });
  it("an empty team is all zeros", () => {
    expect(teamLine([])).toEqual({ working: 0, idle: 0, starting: 0, needsYou: [], mail: 0 });
  });
  it("the wait of unknown length comes last", () => {
    expect(waitingForYou(team).map((entry) => entry.label)).toEqual(["carol", "bob", "frank"]);
  });
});

describe("where muster go goes", () => {
  it("the one named, in any case", () => {
    expect(chooseGo(team, "ALICE")).toMatchObject({ ok: true, member: { label: "alice" } });
  });
  it("with no name, the one waiting longest", () => {
    expect(chooseGo(team, undefined)).toMatchObject({ ok: true, member: { label: "carol" } });
  });
  it.each([
    [[member("dave", view("idle"))], undefined, "nobody-waits"],
    [team, "zoe", "no-such-member"],
    [[member("bob", view("needs-you", 1), { seat: null })], undefined, "no-seat"],
  ] as const)("refused: %#", (members, label, reason) => {
    const choice = chooseGo(members, label);
    expect(choice).toMatchObject({ ok: false, reason });
    if (!choice.ok) expect(choice.fix.length).toBeGreaterThan(0);
  });
});

describe("whether the locale names UTF-8 (else the line is ASCII)", () => {
  it.each([
    [{ LANG: "en_US.UTF-8" }, true],
    [{ LANG: "C.utf8" }, true],
    [{ LC_CTYPE: "de_DE.utf-8", LANG: "C" }, true],
    // The first set variable decides, as it does for tmux: LC_ALL over LC_CTYPE over LANG.
    [{ LC_ALL: "C", LANG: "en_US.UTF-8" }, false],
    [{ LC_ALL: "", LC_CTYPE: "", LANG: "en_US.UTF-8" }, true],
    [{ LC_CTYPE: "POSIX", LANG: "en_US.UTF-8" }, false],
    [{ LANG: "en_US.ISO-8859-1" }, false],
    [{ LANG: "C" }, false],
    [{}, false],
  ])("%o → %s", (env, utf8) => {
    expect(localeSpeaksUtf8(env)).toBe(utf8);
  });
});
