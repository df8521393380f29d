// Every reason a send, an open, a heartbeat, a leave or a lease can give comes with its fix, defined beside the check; the error
// says only what happened, and names no command line of the CLI (a composer renders the two).
import { describe, expect, it } from "vitest";
import { memoryFs } from "../test/memory-fs.js";
import { LEASE_FIXES } from "./_leases.js";
import { MEMBERSHIP_FIXES } from "./_membership.js";
import { SEND_FIXES } from "./_send.js";
import { validateId } from "./_validate.js";
import {
  type JoinInput,
  type OpenResult,
  openRoster,
  type Receipt,
  validateLabel,
} from "./index.js";

/** A command line of the CLI, or one of its flags: a leaf's error names neither. */
const CLI_COMMAND =
  /\bmuster (join|leave|send|inbox|roster|status|agents|seat|spawn|stop|board|lease|release|doctor|prune|install|guard|heartbeat|history|mcp|hook)\b|(^|\s)--[a-z]/;

const DIR = "/state/muster/teams/repo-abc";
const NOW = Date.parse("2026-11-30T12:00:00.000Z");

const member = (id: string, label: string): JoinInput => ({
  id,
  label,
  agent: "pi",
  pid: 100 + id.length,
  pidStart: "1",
  watching: { armed: true, wake: false },
  liveness: "heartbeat",
});

async function team() {
  const memory = memoryFs({ uid: 1000, now: () => NOW });
  const opened = await openRoster({
    dir: DIR,
    fs: memory.fs,
    clock: () => NOW,
    processes: { alive: () => "unknown" },
  });
  if (!opened.ok) throw new Error(opened.error);
  return { memory, roster: opened.roster };
}

const expectApart = (failure: { error: string; fix: string }) => {
  expect(failure.fix.length).toBeGreaterThan(10);
  expect(failure.error).not.toContain(failure.fix);
  expect(failure.error).not.toMatch(CLI_COMMAND);
};

describe("send: every refusal has its fix, apart from the error", () => {
  it("no fix in the table is empty or names the CLI", () => {
    for (const fix of Object.values(SEND_FIXES)) {
      expect(fix.length).toBeGreaterThan(10);
      expect(fix).not.toMatch(CLI_COMMAND);
    }
  });

  it("each refusal a send can give here carries its reason's fix", async () => {
    const { roster } = await team();
    await roster.join(member("a1", "alice"));
    const cases: Promise<Receipt>[] = [
      roster.send({ from: "a1", to: "bob", body: " " }),
      roster.send({ from: "a1", to: "bob", body: "x".repeat(70_000) }),
      roster.send({ from: "a1", to: "bob", body: "hi", hops: -1 }),
      roster.send({ from: "stranger", to: "alice", body: "hi" }),
      roster.send({ from: "a1", to: "bob", body: "hi" }),
      roster.send({ from: "a1", to: "all", body: "hi" }),
    ];
    const reasons: string[] = [];
    for (const receipt of await Promise.all(cases)) {
      if (receipt.ok) throw new Error("expected a refusal");
      reasons.push(receipt.reason);
      expect(receipt.fix).toBe(SEND_FIXES[receipt.reason]);
      expectApart(receipt);
    }
    expect(reasons).toEqual([
      "empty-body",
      "body-too-large",
      "bad-input",
      "not-member",
      "no-live-holder",
      "no-recipients",
    ]);
  });
});

describe("open: every refusal has its fix, apart from the error", () => {
  it.each([
    ["writable by others", { kind: "dir", mode: 0o777, mtimeMs: 0, uid: 1000 }, "unsafe-folder"],
    ["owned by another user", { kind: "dir", mode: 0o700, mtimeMs: 0, uid: 0 }, "unsafe-folder"],
    ["a file", { kind: "file", data: "", mode: 0o600, mtimeMs: 0 }, "unsafe-folder"],
  ] as const)("a team folder %s", async (_, node, reason) => {
    const memory = memoryFs({ uid: 1000, now: () => NOW });
    await memory.fs.mkdir("/state/muster/teams", 0o700);
    memory.nodes.set(DIR, { ...node });
    const opened: OpenResult = await openRoster({
      dir: DIR,
      fs: memory.fs,
      clock: () => NOW,
      processes: { alive: () => "unknown" },
    });
    if (opened.ok) throw new Error("expected a refusal");
    expect(opened.reason).toBe(reason);
    expectApart(opened);
  });

  it("a folder of someone's files is not a team: not-a-team", async () => {
    const memory = memoryFs({ uid: 1000, now: () => NOW });
    await memory.fs.mkdir(DIR, 0o700);
    await memory.fs.writeFile(`${DIR}/notes.txt`, "mine", 0o600);
    const opened = await openRoster({
      dir: DIR,
      fs: memory.fs,
      clock: () => NOW,
      processes: { alive: () => "unknown" },
    });
    if (opened.ok) throw new Error("expected a refusal");
    expect(opened.reason).toBe("not-a-team");
    expectApart(opened);
  });
});

describe("membership and leases: every failure has its fix, apart from the error", () => {
  it("no fix in the tables is empty or names the CLI", () => {
    for (const fix of [...Object.values(MEMBERSHIP_FIXES), ...Object.values(LEASE_FIXES)]) {
      expect(fix.length).toBeGreaterThan(10);
      expect(fix).not.toMatch(CLI_COMMAND);
    }
  });

  it("a heartbeat of a session the team forgot, or whose label was released, is lost", async () => {
    const { roster } = await team();
    expect(await roster.heartbeat("never-joined")).toEqual({
      ok: false,
      reason: "lost",
      error: "session never-joined is no longer on the team",
      fix: "join the team again",
    });
    await roster.join(member("a1", "alice"));
    expect(await roster.releaseClaim("labels", "alice", "a1")).toBe(true);
    expect(await roster.heartbeat("a1")).toEqual({
      ok: false,
      reason: "lost",
      error: 'label "alice" is no longer held by session a1',
      fix: "join the team again",
    });
  });

  it("a heartbeat or a leave with an id that is not one is bad-id", async () => {
    const { roster } = await team();
    for (const failure of [await roster.heartbeat("../x"), await roster.leave("../x")]) {
      if (failure.ok) throw new Error("expected a refusal");
      expect(failure.reason).toBe("bad-id");
      expect(failure.fix).toBe(MEMBERSHIP_FIXES["bad-id"]);
      expectApart(failure);
    }
  });

  it("a lease with no pattern or no time is bad-input", async () => {
    const { roster } = await team();
    const lease = { holderId: "a1", holder: "alice", mode: "exclusive" as const, ttlMs: 60_000 };
    const holds = () => true;
    const allow = () => ({ ok: true as const });
    const failures = [
      await roster.takeLease({ ...lease, pattern: "" }, holds, allow),
      await roster.takeLease({ ...lease, pattern: "src", ttlMs: 0 }, holds, allow),
    ];
    expect(failures).toEqual([
      {
        ok: false,
        reason: "bad-input",
        error: "a lease needs a pattern of 1-1024 characters",
        fix: "give a pattern of 1-1024 characters and a time to hold it",
      },
      {
        ok: false,
        reason: "bad-input",
        error: "a lease needs a TTL",
        fix: "give a pattern of 1-1024 characters and a time to hold it",
      },
    ]);
  });
});

describe("names: a label or id that is not one says so, and the fix comes apart", () => {
  it.each([
    ["a path as a label", validateLabel("../x"), '"../x" is not a label'],
    ["an empty label", validateLabel(""), "a label cannot be empty"],
    ["a reserved word", validateLabel("all"), '"all" is reserved for addressing'],
    ["a path as an id", validateId("a/b"), '"a/b" is not a valid session id'],
  ])("%s", (_name, checked, error) => {
    expect(checked).toMatchObject({ ok: false, error });
    if (checked.ok) return;
    expect(checked.fix).not.toMatch(CLI_COMMAND);
    expect(checked.error).not.toContain(checked.fix);
    expect(checked.error).not.toContain(";");
  });

  it("a join under such a label carries the fix beside its reason", async () => {
    const { roster } = await team();
    expect(await roster.join(member("s1", "all"))).toMatchObject({
      ok: false,
      reason: "bad-label",
      error: '"all" is reserved for addressing',
      fix: "choose another label",
    });
  });
});
