import { describe, expect, it } from "vitest";
import { DEFAULT_WATCHING } from "./_join.js";
import {
  type JoinRequest,
  joinTeam,
  type SessionView,
  type Standing,
  tookOverLine,
  type Watching,
} from "./index.js";
import type { JoinAnswer, RosterEntry } from "./internal.js";

const NOW = 1_000_000;
const QUIET: Watching = { armed: true, wake: false };
const WAKING: Watching = { armed: true, wake: true };
const DEAF: Watching = { armed: false, wake: false };

function entry(overrides: Partial<RosterEntry> = {}): RosterEntry {
  return {
    id: "s1",
    label: "alice",
    state: "live",
    pid: 42,
    pidStart: "100",
    watching: QUIET,
    ...overrides,
  };
}

function session(overrides: Partial<SessionView> = {}): SessionView {
  return {
    id: "s1",
    pid: 42,
    pidStart: "100",
    standing: undefined,
    now: () => NOW,
    roster: [],
    ...overrides,
  };
}

/** A roster join that records what it was asked and answers as told. */
function team(answer: JoinAnswer | Error = { ok: true, label: "alice", watching: QUIET }) {
  const asked: (JoinRequest & { agent: string })[] = [];
  return {
    asked,
    access: {
      join: async (input: JoinRequest & { agent: string }) => {
        asked.push(input);
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
  };
}

const okStanding = (label = "alice", watching = QUIET): Standing => ({
  ok: true,
  label,
  watching,
  at: 1,
});

describe("joinTeam: when to ask", () => {
  it.each([
    {
      rule: "a live record for this session, owned by this process, under the asked label → seated",
      roster: [entry()],
      label: "ALICE",
      asked: false,
      reason: "seated",
    },
    {
      rule: "a live record under another label → ask (a rename)",
      roster: [entry({ label: "bob" })],
      label: "alice",
      asked: true,
      reason: "rename",
    },
    {
      rule: "a record owned by another process of the same session id → ask (a second pane)",
      roster: [entry({ pid: 99 })],
      label: "alice",
      asked: true,
      reason: "other-pane",
    },
    {
      rule: "the same pid with another start time is another process → ask",
      roster: [entry({ pidStart: "999" })],
      label: "alice",
      asked: true,
      reason: "other-pane",
    },
    {
      rule: "a gone record for this session → ask",
      roster: [entry({ state: "gone" })],
      label: "alice",
      asked: true,
      reason: "not-seated",
    },
    {
      rule: "another session's live record under the label → ask (the roster decides who holds it)",
      roster: [entry({ id: "s2" })],
      label: "alice",
      asked: true,
      reason: "not-seated",
    },
    {
      rule: "a live record under the label whose claim another session took → ask (the label was lost)",
      roster: [entry({ holdsLabel: false })],
      label: "alice",
      asked: true,
      reason: "label-lost",
    },
    {
      rule: "a live record that says it holds its label → seated",
      roster: [entry({ holdsLabel: true })],
      label: "alice",
      asked: false,
      reason: "seated",
    },
    {
      rule: "no record at all → ask",
      roster: [],
      label: "alice",
      asked: true,
      reason: "not-seated",
    },
  ])("$rule", async ({ roster, label, asked, reason }) => {
    const fake = team();
    const outcome = await joinTeam(
      session({ roster }),
      fake.access,
      { input: { agent: "pi" } },
      label,
    );
    expect(outcome.asked).toBe(asked);
    expect(outcome.reason).toBe(reason);
    expect(fake.asked).toHaveLength(asked ? 1 : 0);
    expect(outcome.standing.ok).toBe(true);
  });

  it("seated carries the record's label and whether mail reaches the session", async () => {
    const fake = team();
    const outcome = await joinTeam(
      session({ roster: [entry({ label: "Alice", watching: DEAF })] }),
      fake.access,
      { input: { agent: "pi" } },
      "alice",
    );
    expect(outcome.standing).toEqual({ ok: true, label: "Alice", watching: DEAF, at: NOW });
  });

  it("seated under the label but asked for another listening choice → ask", async () => {
    const fake = team({ ok: true, label: "alice", watching: WAKING });
    const outcome = await joinTeam(
      session({ roster: [entry()] }),
      fake.access,
      { input: { agent: "pi" }, watching: WAKING },
      "alice",
    );
    expect(outcome.asked).toBe(true);
    expect(fake.asked[0]?.watching).toEqual(WAKING);
  });

  it("no word from the roster while the standing says a join landed → keep it, ask nothing", async () => {
    const fake = team();
    const standing = okStanding("lead");
    const outcome = await joinTeam(
      session({ roster: "unknown", standing }),
      fake.access,
      { input: { agent: "pi" } },
      "other",
    );
    expect(outcome).toEqual({ asked: false, reason: "roster-unknown", standing });
    expect(fake.asked).toEqual([]);
  });

  it("no word from the roster and no standing → ask", async () => {
    const fake = team();
    const outcome = await joinTeam(
      session({ roster: "unknown" }),
      fake.access,
      { input: { agent: "pi" } },
      "alice",
    );
    expect(outcome.asked).toBe(true);
  });

  it("no word from the roster after a refusal → ask again", async () => {
    const fake = team();
    const refused: Standing = {
      ok: false,
      label: "alice",
      watching: QUIET,
      reason: "label-held",
      error: "held",
      at: 1,
    };
    const outcome = await joinTeam(
      session({ roster: "unknown", standing: refused }),
      fake.access,
      { input: { agent: "pi" } },
      "alice",
    );
    expect(outcome.asked).toBe(true);
  });

  it.each([
    { case: "a rename", label: "bob", watching: undefined },
    { case: "a listening change", label: "alice", watching: WAKING },
    { case: "the same label, asked again", label: "alice", watching: undefined },
  ])(
    "typed by the user, $case is asked even when the roster gives no word",
    async ({ label, watching }) => {
      const fake = team({ ok: true, label, watching: watching ?? QUIET });
      const outcome = await joinTeam(
        session({ roster: "unknown", standing: okStanding("alice") }),
        fake.access,
        { input: { agent: "pi" }, watching, typed: true },
        label,
      );
      expect(outcome).toMatchObject({ asked: true, reason: "typed" });
      expect(fake.asked).toHaveLength(1);
      expect(outcome.standing).toMatchObject({ ok: true, label });
    },
  );

  it("typed, under the label the live record already holds, with no new choice → seated", async () => {
    const fake = team();
    const outcome = await joinTeam(
      session({ roster: [entry()], standing: okStanding("alice") }),
      fake.access,
      { input: { agent: "pi" }, typed: true },
      "alice",
    );
    expect(outcome).toMatchObject({ asked: false, reason: "seated" });
  });

  it("passes the context's input and this session's id to the join", async () => {
    const fake = team();
    await joinTeam(session(), fake.access, { input: { agent: "codex" } }, "alice");
    expect(fake.asked).toEqual([
      { agent: "codex", id: "s1", label: "alice", watching: DEFAULT_WATCHING },
    ]);
  });
});

describe("joinTeam: what it remembers", () => {
  it("a refusal is remembered with its reason, holder and the asked label", async () => {
    const fake = team({
      ok: false,
      reason: "label-held",
      error: 'label "alice" is held',
      holderLabel: "s9",
    });
    const outcome = await joinTeam(session(), fake.access, { input: { agent: "pi" } }, "alice");
    expect(outcome.standing).toEqual({
      ok: false,
      label: "alice",
      watching: DEFAULT_WATCHING,
      reason: "label-held",
      error: 'label "alice" is held',
      holderLabel: "s9",
      at: NOW,
    });
  });

  it("a join that throws becomes a refusal with its message, never rethrown", async () => {
    const fake = team(new Error("disk on fire"));
    const outcome = await joinTeam(session(), fake.access, { input: { agent: "pi" } }, "alice");
    expect(outcome.asked).toBe(true);
    expect(outcome.standing).toMatchObject({
      ok: false,
      reason: "join-failed",
      error: "disk on fire",
    });
  });

  it("no roster configured → a no-roster refusal, nothing asked", async () => {
    const outcome = await joinTeam(session(), undefined, { input: { agent: "pi" } }, "alice");
    expect(outcome).toMatchObject({
      asked: false,
      reason: "no-roster",
      standing: { ok: false, reason: "no-roster" },
    });
  });
});

describe("joinTeam: a re-ask repeats the listening choice", () => {
  it.each([
    {
      rule: "the roster record's choice first: listen off stays off",
      roster: [entry({ label: "old", watching: DEAF })],
      standing: okStanding("old", WAKING),
      explicit: undefined,
      expected: DEAF,
    },
    {
      rule: "then the standing's: a waking watch stays waking",
      roster: [],
      standing: okStanding("old", WAKING),
      explicit: undefined,
      expected: WAKING,
    },
    {
      rule: "a gone record still carries the user's choice",
      roster: [entry({ state: "gone", watching: DEAF })],
      standing: undefined,
      explicit: undefined,
      expected: DEAF,
    },
    {
      rule: "an explicit choice wins",
      roster: [entry({ label: "old", watching: DEAF })],
      standing: undefined,
      explicit: WAKING,
      expected: WAKING,
    },
    {
      rule: "nothing known → the default",
      roster: [],
      standing: undefined,
      explicit: undefined,
      expected: QUIET,
    },
  ])("$rule", async ({ roster, standing, explicit, expected }) => {
    const fake = team();
    await joinTeam(
      session({ roster, standing }),
      fake.access,
      { input: { agent: "pi" }, watching: explicit },
      "new",
    );
    expect(fake.asked[0]?.watching).toEqual(expected);
  });
});

describe("tookOverLine: what a takeover says", () => {
  it.each([
    [
      { reason: "dead", forwarded: 2 },
      'took over "lead" from a dead session; 2 unread messages forwarded',
    ],
    [
      { reason: "expired", forwarded: 1 },
      'took over "lead" from an expired session; 1 unread message forwarded',
    ],
    [{ reason: "dead", forwarded: 0 }, 'took over "lead" from a dead session'],
    [
      { reason: "orphan", forwarded: 0 },
      'took over "lead" from a session that never finished joining',
    ],
    [
      { reason: "constructor", forwarded: 0 },
      'took over "lead" from a claim that could not be read',
    ],
  ])("%j", (took, line) => {
    expect(tookOverLine("lead", took)).toBe(line);
  });
});
