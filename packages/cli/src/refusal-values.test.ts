// Errors as values to the edge (issue 35): a board or lease command's refusal, from core's identity
// rule (`actAsMember`) or from a leaf's answer, comes back to `_main.ts` as a value, never thrown
// through core. `contract.test.ts` holds the words and the exit status; this holds the path.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { joinAsThisProcess, joinSendPeers, openTestTeam } from "@muster/test-team";
import { afterAll, describe, expect, it, vi } from "vitest";
import { actAsCaller } from "./_acting.js";
import { boardRefused, settled } from "./_board-team.js";
import { type Context, isRefused } from "./_context.js";
import type { IdentifiedCaller } from "./_identity.js";
import { sendCommand } from "./_send.js";

const caller = {
  id: "shell-1-1",
  agent: "shell",
  engine: undefined,
  pid: 1,
  explicit: false,
} as unknown as IdentifiedCaller;

const member = (id: string) => ({ id, label: "alice", state: "live" });

function contextWith(members: object[]): Context {
  const roster = { read: async () => ({ ok: true, members }) };
  return {
    json: true,
    io: { env: {} },
    out: () => undefined,
    roster: async () => roster,
  } as unknown as Context;
}

const cardHeld = {
  ok: false as const,
  reason: "card-held" as const,
  error: "c1 is held by bob",
  fix: "ask bob",
  holder: "bob",
};

describe("a refusal travels back as a value", () => {
  it("a board leaf's failure is a value, with the facts the document shows", () => {
    const answer = settled(cardHeld as never);
    expect(isRefused(answer)).toBe(true);
    expect(answer).toMatchObject({
      ok: false,
      reason: "card-held",
      details: { holder: "bob", blockers: [], warnings: [] },
    });
  });

  it("core's not-a-member refusal is returned, not thrown, for a command on what a member holds", async () => {
    const act = vi.fn();
    const answer = await actAsCaller(contextWith([]), caller, "holds", {
      purpose: "",
      check: async () => undefined,
      act,
    });
    expect(answer).toMatchObject({ ok: false, reason: "not-member", details: { id: caller.id } });
    expect(act).not.toHaveBeenCalled();
  });

  it("a check's refusal comes back as it is, with nobody joined", async () => {
    const refusal = boardRefused(cardHeld as never);
    const answer = await actAsCaller(contextWith([]), caller, "acts", {
      purpose: "to claim c1",
      check: async () => refusal,
      act: vi.fn(),
    });
    expect(answer).toBe(refusal);
  });

  it("a refusal the act returns, as a member, comes back as it is", async () => {
    const refusal = boardRefused(cardHeld as never);
    const answer = await actAsCaller(contextWith([member(caller.id)]), caller, "acts", {
      purpose: "to claim c1",
      check: async () => undefined,
      act: async () => refusal,
    });
    expect(answer).toBe(refusal);
  });

  it("a member's act that passes gives its result", async () => {
    const answer = await actAsCaller(contextWith([member(caller.id)]), caller, "holds", {
      purpose: "",
      check: async () => undefined,
      act: async () => ({ ok: true as const, done: 1 }),
    });
    expect(answer).toMatchObject({ ok: true, result: { done: 1 }, joined: null });
  });
});

describe("a send's refusal travels back as a value", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "muster-refusal-values-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("a typo among the labels: the wiring's refusal is returned, not thrown", async () => {
    const roster = await openTestTeam(path.join(scratch, "team"));
    await joinSendPeers(roster);
    await joinAsThisProcess(roster, "lead");
    const context = {
      json: true,
      io: { env: {}, stdin: { isTTY: true } },
      out: () => undefined,
      emit: () => undefined,
      roster: async () => roster,
    } as unknown as Context;
    const answer = await sendCommand(context, {
      to: "reviewer,writr",
      words: ["hello"],
      from: "lead",
      urgent: false,
    });
    expect(answer).toMatchObject({
      ok: false,
      reason: "no-live-holder",
      details: { label: "writr", suggestion: "writer" },
    });
  });
});
