import { describe, expect, it } from "vitest";
import { refusalFix } from "./_refusal.js";
import {
  joinFailureLine,
  NO_ROSTER_FIX,
  oneSentence,
  type SessionView,
  type Standing,
  teamStatus,
} from "./index.js";

const refusal = (reason: string, error: string, holder?: string): Standing => ({
  ok: false,
  label: "lead",
  watching: { armed: true, wake: false },
  reason,
  error,
  holderLabel: holder,
  at: 1,
});

describe("refusalFix", () => {
  it.each([
    { reason: "no-roster", addressed: false, fix: NO_ROSTER_FIX },
    {
      reason: "label-held",
      addressed: false,
      fix: 'only that session\'s stop frees "lead", or join under another name',
    },
    {
      reason: "label-held",
      addressed: true,
      fix: 'only that session\'s stop frees "lead", or join under another name (peers address you as "lead", so tell them the new one)',
    },
    {
      reason: "label-held-gone",
      addressed: false,
      fix: '"lead" frees itself when the dead session\'s record ages out, or join under another name',
    },
    {
      reason: "label-held-gone",
      addressed: true,
      fix: '"lead" frees itself when the dead session\'s record ages out, or join under another name (peers address you as "lead", so tell them the new one)',
    },
    { reason: "busy", addressed: false, fix: "try again in a moment" },
    { reason: "bad-label", addressed: false, fix: undefined },
    { reason: "unwritable", addressed: true, fix: undefined },
  ])("$reason (addressed: $addressed)", ({ reason, addressed, fix }) => {
    expect(refusalFix({ reason, label: "lead" }, { addressed })).toBe(fix);
  });
});

describe("joinFailureLine", () => {
  it.each([
    {
      case: "a known cause gets its fix, one full stop",
      standing: refusal("label-held", 'label "lead" is held by a live session.'),
      line: 'Could not join as "lead": label "lead" is held by a live session; only that session\'s stop frees "lead", or join under another name.',
    },
    {
      case: "an unknown reason passes through with no fix grafted on",
      standing: refusal("unwritable", "the team folder is read-only"),
      line: 'Could not join as "lead": the team folder is read-only.',
    },
    {
      case: "a reason that already ends in a full stop is not doubled",
      standing: refusal("bad-label", "labels are 1-32 letters, digits, . _ or -."),
      line: 'Could not join as "lead": labels are 1-32 letters, digits, . _ or -.',
    },
    {
      case: "a question keeps its own mark",
      standing: refusal("odd", "is the disk mounted?"),
      line: 'Could not join as "lead": is the disk mounted?',
    },
    {
      case: "another process changing the session: a moment's wait is the fix",
      standing: refusal("busy", "session s1 is being changed by another process (a prune?)"),
      line: 'Could not join as "lead": session s1 is being changed by another process (a prune?); try again in a moment.',
    },
    {
      case: "the holder is named when the error does not name it",
      standing: refusal("label-held-gone", "label taken", "bob"),
      line: 'Could not join as "lead": label taken (held by bob); "lead" frees itself when the dead session\'s record ages out, or join under another name.',
    },
  ])("$case", ({ standing, line }) => {
    expect(joinFailureLine(standing)).toBe(line);
  });

  it("is empty for a success", () => {
    expect(
      joinFailureLine({ ok: true, label: "a", watching: { armed: true, wake: false }, at: 1 }),
    ).toBe("");
  });

  it("oneSentence drops empty clauses", () => {
    expect(oneSentence(["done.", "", "  "])).toBe("Done.");
    expect(oneSentence([])).toBe("");
  });
});

describe("teamStatus", () => {
  const live = {
    id: "s1",
    label: "alice",
    state: "live" as const,
    pid: 1,
    watching: { armed: true, wake: true },
  };
  const base: SessionView = { id: "s1", pid: 1, standing: undefined, now: () => 0, roster: [] };
  const ok: Standing = {
    ok: true,
    label: "remembered",
    watching: { armed: true, wake: false },
    at: 0,
  };

  it.each([
    {
      case: "the live record first, over any standing",
      view: { ...base, roster: [live], standing: ok },
      status: { kind: "member", label: "alice", watching: live.watching, source: "roster" },
    },
    {
      case: "the standing when the roster cannot be read",
      view: { ...base, roster: "unknown" as const, standing: ok },
      status: { kind: "member", label: "remembered", watching: ok.watching, source: "standing" },
    },
    {
      case: "a success the roster no longer backs is not repeated",
      view: { ...base, roster: [], standing: ok },
      status: { kind: "none" },
    },
    {
      case: "a gone record does not make a member",
      view: { ...base, roster: [{ ...live, state: "gone" as const }], standing: ok },
      status: { kind: "none" },
    },
    {
      case: "a live record whose label another session took is not a member",
      view: { ...base, roster: [{ ...live, holdsLabel: false }], standing: ok },
      status: { kind: "none" },
    },
    {
      case: "a live record that lost its label, with the refusal that followed",
      view: {
        ...base,
        roster: [{ ...live, holdsLabel: false }],
        standing: refusal("label-held", "held"),
      },
      status: {
        kind: "refused",
        label: "lead",
        line: 'Could not join as "lead": held; only that session\'s stop frees "lead", or join under another name.',
      },
    },
    {
      case: "only a remembered refusal",
      view: { ...base, standing: refusal("label-held", "held") },
      status: {
        kind: "refused",
        label: "lead",
        line: 'Could not join as "lead": held; only that session\'s stop frees "lead", or join under another name.',
      },
    },
    { case: "nothing at all", view: base, status: { kind: "none" } },
  ])("$case", ({ view, status }) => {
    expect(teamStatus(view)).toEqual(status);
  });
});
