import { beforeEach, describe, expect, it } from "vitest";
import { memoryFs } from "../test/memory-fs.js";
import { DEFAULT_POLICY } from "./_liveness.js";
import { validateId } from "./_validate.js";
import {
  type JoinInput,
  openRoster,
  type ProcessFact,
  type Roster,
  validateLabel,
  WAKE_CLAIM_MS,
} from "./index.js";

const DIR = "/state/muster/teams/repo-abc";
const START = Date.parse("2026-11-30T12:00:00.000Z");

function setup(options: { uid?: number } = {}) {
  let now = START;
  const processes = new Map<number, ProcessFact>();
  const memory = memoryFs({ uid: options.uid ?? 1000, now: () => now });
  const facts = { alive: (pid: number) => processes.get(pid) ?? "unknown" };
  return {
    memory,
    processes,
    advance: (ms: number) => {
      now += ms;
    },
    open: async () => {
      const opened = await openRoster({
        dir: DIR,
        fs: memory.fs,
        clock: () => now,
        processes: facts,
      });
      if (!opened.ok) throw new Error(opened.error);
      return opened.roster;
    },
  };
}

const member = (id: string, label: string, overrides: Partial<JoinInput> = {}): JoinInput => ({
  id,
  label,
  agent: "pi",
  pid: 100 + id.length,
  pidStart: "1",
  watching: { armed: true, wake: false },
  liveness: "heartbeat",
  ...overrides,
});

describe("labels and ids", () => {
  it.each([
    ["", false],
    ["a".repeat(32), true],
    ["a".repeat(33), false],
    ["../x", false],
    ["a/b", false],
    ["nul\u0000", false],
    ["new\nline", false],
    [".hidden", false],
    ["-dash", false],
    ["all", false],
    ["ALL", false],
    ["alice", true],
    ["Bob_2.dev-x", true],
    ["9lives", true],
  ])("label %j → %s", (label, ok) => {
    expect(validateLabel(label).ok).toBe(ok);
  });

  it.each([
    ["01a22acf-26be-7480-acf3-78282", true],
    ["../etc", false],
    ["a/b", false],
    ["a\\b", false],
    [".", false],
    ["", false],
    ["x".repeat(129), false],
  ])("id %j → %s", (id, ok) => {
    expect(validateId(id).ok).toBe(ok);
  });

  it("a bad label's error shows control characters instead of printing them", () => {
    const result = validateLabel("a\nb");
    expect(result.ok === false && result.error).toContain("\\u000a");
  });
});

describe("openRoster", () => {
  it("creates the layout with folder mode 0700", async () => {
    const team = setup();
    await team.open();
    for (const sub of ["sessions", "labels", "locks", "mail", "quarantine"]) {
      expect(team.memory.nodes.get(`${DIR}/${sub}`)).toMatchObject({ kind: "dir", mode: 0o700 });
    }
  });

  it.each([
    {
      case: "owned by another user",
      node: { kind: "dir", mode: 0o700, mtimeMs: 0, uid: 0 },
      reason: "unsafe-folder",
      says: "belongs to uid 0",
    },
    {
      case: "writable by others",
      node: { kind: "dir", mode: 0o777, mtimeMs: 0, uid: 1000 },
      reason: "unsafe-folder",
      says: "chmod 700",
    },
    {
      case: "writable by group",
      node: { kind: "dir", mode: 0o770, mtimeMs: 0, uid: 1000 },
      reason: "unsafe-folder",
      says: "group or others",
    },
    {
      case: "a file",
      node: { kind: "file", data: "", mode: 0o600, mtimeMs: 0 },
      reason: "unsafe-folder",
      says: "not a folder",
    },
  ] as const)("refuses a folder $case, as a value", async ({ node, reason, says }) => {
    const team = setup();
    await team.memory.fs.mkdir("/state/muster/teams", 0o700);
    team.memory.nodes.set(DIR, { ...node });
    const opened = await openRoster({
      dir: DIR,
      fs: team.memory.fs,
      clock: () => START,
      processes: { alive: () => "unknown" },
    });
    expect(opened).toMatchObject({ ok: false, reason });
    expect(opened.ok === false && `${opened.error}; ${opened.fix}`).toContain(says);
  });

  it("refuses a folder it cannot create", async () => {
    const team = setup();
    team.memory.failOn("mkdir");
    const opened = await openRoster({
      dir: DIR,
      fs: team.memory.fs,
      clock: () => START,
      processes: { alive: () => "unknown" },
    });
    expect(opened).toMatchObject({ ok: false, reason: "unwritable" });
  });
});

describe("join", () => {
  let team: ReturnType<typeof setup>;
  let roster: Roster;
  beforeEach(async () => {
    team = setup();
    roster = await team.open();
  });

  it("claims the label, writes the record and the mailbox, files 0600", async () => {
    expect(await roster.join(member("s1", "alice"))).toEqual({
      ok: true,
      label: "alice",
      watching: { armed: true, wake: false },
      renamedFrom: undefined,
      reclaimedFrom: undefined,
    });
    expect(team.memory.files(DIR)).toEqual([`${DIR}/labels/alice.json`, `${DIR}/sessions/s1.json`]);
    expect(team.memory.nodes.get(`${DIR}/sessions/s1.json`)).toMatchObject({ mode: 0o600 });
    expect(team.memory.nodes.get(`${DIR}/mail/s1/new`)).toMatchObject({ kind: "dir" });
  });

  it("keeps the engine's home a door saw, for the wakes; one that is not text is no record", async () => {
    await roster.join(member("s1", "alice", { engineHome: "/home/ann/.codex" }));
    const read = await roster.read();
    expect(read.ok && read.members[0]?.engineHome).toBe("/home/ann/.codex");
    team.memory.put(
      `${DIR}/sessions/s9.json`,
      JSON.stringify({ ...team.memory.json(`${DIR}/sessions/s1.json`), id: "s9", engineHome: 7 }),
    );
    const again = await roster.read();
    expect(again.ok && again.members.map((entry) => entry.id)).toEqual(["s1"]);
  });

  it("a new session in the same process takes the label of the one it left, with its unread mail", async () => {
    const codex = (id: string, pid = 300, leaves?: string) =>
      member(id, "coder", { agent: "codex", pid, pidStart: "9", liveness: "process", leaves });
    team.processes.set(300, "alive");
    team.processes.set(301, "alive");
    await roster.join(codex("thread-a"));
    await roster.join(member("peer", "bob"));
    expect(await roster.send({ from: "peer", to: "coder", body: "unread" })).toMatchObject({
      ok: true,
    });
    // Another Codex process cannot take it, even saying it left it: its holder is live.
    expect(await roster.join(codex("thread-x", 301, "thread-a"))).toMatchObject({
      ok: false,
      reason: "label-held",
    });
    // Nor the same process without saying so (two ids from one shell are two members).
    expect(await roster.join(codex("thread-y"))).toMatchObject({ ok: false, reason: "label-held" });
    // The same process, a new thread (a Codex TUI's /new): the old session was left.
    expect(await roster.join(codex("thread-b", 300, "thread-a"))).toMatchObject({
      ok: true,
      label: "coder",
      took: { from: "thread-a", reason: "left", forwarded: 1 },
    });
    const read = await roster.read();
    expect(read.ok && read.members.map((entry) => entry.id).sort()).toEqual(["peer", "thread-b"]);
    const inbox = await roster.receive("thread-b");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual(["unread"]);
  });

  it("re-joining under the same label refreshes the record", async () => {
    await roster.join(member("s1", "alice"));
    team.advance(20_000);
    expect(
      await roster.join(member("s1", "alice", { watching: { armed: false, wake: false } })),
    ).toMatchObject({ ok: true });
    const record = team.memory.json(`${DIR}/sessions/s1.json`);
    expect(record?.heartbeatAt).toBe(new Date(START + 20_000).toISOString());
    expect(record?.joinedAt).toBe(new Date(START).toISOString());
    expect(record?.watching).toEqual({ armed: false, wake: false });
  });

  it.each([
    { input: member("../x", "alice"), reason: "bad-id" },
    { input: member("a/b", "alice"), reason: "bad-id" },
    { input: member("s1", "../x"), reason: "bad-label" },
    { input: member("s1", "all"), reason: "bad-label" },
    { input: member("s1", "alice", { pid: 0 }), reason: "bad-input" },
    { input: member("s1", "alice", { agent: "" }), reason: "bad-input" },
  ])("refuses $reason with nothing written", async ({ input, reason }) => {
    expect(await roster.join(input)).toMatchObject({ ok: false, reason });
    expect(team.memory.files(DIR)).toEqual([]);
  });

  it("a disk that refuses writes is unwritable, not a throw", async () => {
    team.memory.failOn("writeFile");
    expect(await roster.join(member("s1", "alice"))).toMatchObject({
      ok: false,
      reason: "unwritable",
    });
  });
});

// The liveness table, takeovers and the stale and dead in prune are the conformance suite's
// (internal/roster-conformance), run on every store; what stays here is the folder store's own.
describe("liveness", () => {
  it("a pid with no start time proves nothing: the TTL decides, however long the pid runs", async () => {
    const team = setup();
    const roster = await team.open();
    await roster.join(member("s1", "alice", { pid: 1, pidStart: undefined, liveness: "process" }));
    team.processes.set(1, "alive"); // pid 1 always runs: it is not this member's process
    team.advance(DEFAULT_POLICY.ttlMs + 1);
    const read = await roster.read({ all: true });
    expect(read.ok && read.members[0]).toMatchObject({ state: "expired", reason: "past-ttl" });
  });

  it("a record from another boot or pid namespace is judged by its heartbeat only", async () => {
    const team = setup();
    const here = await team.open();
    const there = await openRoster({
      dir: DIR,
      fs: team.memory.fs,
      clock: () => START,
      processes: { alive: () => "alive", place: () => "boot B pid:[2]" },
    });
    if (!there.ok) throw new Error(there.error);
    await there.roster.join(member("s1", "lead", { pid: 700 }));
    team.processes.set(700, "dead"); // here, pid 700 is another process, long gone
    const read = await here.read();
    expect(read.ok && read.members[0]).toMatchObject({ state: "live", reason: "heartbeat-fresh" });
    expect(await here.join(member("s2", "lead", { pid: 701 }))).toMatchObject({
      ok: false,
      reason: "label-held",
    });
  });

  it("expired records are left out unless asked for", async () => {
    const team = setup();
    const roster = await team.open();
    await roster.join(member("s1", "alice"));
    team.advance(DEFAULT_POLICY.ttlMs + 1);
    expect(await roster.read()).toMatchObject({ ok: true, members: [] });
    expect(await roster.read({ all: true })).toMatchObject({
      ok: true,
      members: [{ state: "expired" }],
    });
  });
});

describe("taking over a label", () => {
  it("a fresh lock held by another reclaimer makes this one step back; a stale lock is broken", async () => {
    const team = setup();
    const roster = await team.open();
    await roster.join(member("s1", "lead", { pid: 700 }));
    team.processes.set(700, "dead");
    await team.memory.fs.writeFile(
      `${DIR}/locks/labels.lead.lock`,
      JSON.stringify({ v: 1, holder: "s3", at: new Date(START).toISOString(), token: "t3" }),
      0o600,
    );
    expect(await roster.join(member("s2", "lead"))).toMatchObject({
      ok: false,
      reason: "label-held",
    });
    team.advance(6_000);
    expect(await roster.join(member("s2", "lead"))).toMatchObject({
      ok: true,
      reclaimedFrom: "s1",
    });
    expect(team.memory.files(`${DIR}/locks`)).toEqual([]);
  });
});

describe("heartbeat and leave", () => {
  it("heartbeat refreshes; lost when the record is gone", async () => {
    const team = setup();
    const roster = await team.open();
    await roster.join(member("s1", "alice"));
    team.advance(25_000);
    expect(await roster.heartbeat("s1")).toEqual({ ok: true, label: "alice" });
    team.advance(25_000);
    expect(await roster.read()).toMatchObject({ members: [{ state: "live" }] });
    await team.memory.fs.removeTree(DIR);
    expect(await roster.heartbeat("s1")).toMatchObject({ ok: false, reason: "lost" });
    expect(await roster.heartbeat("../x")).toMatchObject({ ok: false, reason: "bad-id" });
  });

  it("leave releases the label and the record; unread mail stays readable", async () => {
    const team = setup();
    const roster = await team.open();
    await roster.join(member("s1", "alice"));
    await roster.join(member("s2", "bob"));
    expect(await roster.send({ from: "bob", to: "alice", body: "before you go" })).toMatchObject({
      ok: true,
    });
    expect(await roster.leave("s1")).toEqual({ ok: true, left: true });
    expect(await roster.leave("s1")).toEqual({ ok: true, left: false });
    expect(await roster.read()).toMatchObject({ members: [{ label: "bob" }] });
    expect(await roster.join(member("s3", "alice"))).toMatchObject({ ok: true });
    const inbox = await roster.receive("s1");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual(["before you go"]);
  });
});

describe("read", () => {
  it("an unreadable folder is unknown, never an empty team", async () => {
    const team = setup();
    const roster = await team.open();
    team.memory.failOn("readdir", (path) => path.endsWith("/sessions"));
    expect(await roster.read()).toMatchObject({ ok: false, state: "unknown" });
  });

  it("names the files it could not read, and harms nothing else", async () => {
    const team = setup();
    const roster = await team.open();
    await roster.join(member("s1", "alice"));
    const whole = JSON.stringify({
      ...team.memory.json(`${DIR}/sessions/s1.json`),
      id: "s2",
      label: "bob",
    });
    await team.memory.fs.writeFile(
      `${DIR}/sessions/s2.json`,
      whole.slice(0, whole.length / 2),
      0o600,
    );
    await team.memory.fs.writeFile(`${DIR}/sessions/s3.json`, JSON.stringify({ v: 2 }), 0o600);
    await team.memory.fs.writeFile(`${DIR}/sessions/notes.txt`, "hi", 0o600);
    await team.memory.fs.writeFile(`${DIR}/sessions/.abc.tmp`, "{", 0o600);
    const read = await roster.read();
    expect(read.ok && read.members.map((entry) => entry.label)).toEqual(["alice"]);
    // In no particular order: a store lists its keys as it keeps them.
    expect(read.ok && [...read.warnings].sort()).toEqual([
      "sessions/notes.txt is not a session record; skipped",
      "sessions/s2.json does not parse as JSON (truncated or not a roster file); skipped",
      "sessions/s3.json has unknown version 2; skipped",
    ]);
  });
});

describe("prune", () => {
  it("removes expired records, their claims and mailboxes; keeps the living; quarantines what does not parse once past the TTL", async () => {
    const team = setup();
    const roster = await team.open();
    await roster.join(member("old", "alice"));
    await team.memory.fs.writeFile(`${DIR}/sessions/bad.json`, "{trunc", 0o600);
    team.advance(DEFAULT_POLICY.ttlMs / 2);
    await roster.join(member("new", "bob"));
    // A record nobody can read is unknown, never gone: it stays while younger than the TTL.
    expect(await roster.prune()).toMatchObject({ ok: true, removed: [], quarantined: [] });
    team.advance(DEFAULT_POLICY.ttlMs / 2 + 1);
    const result = await roster.prune();
    expect(result).toMatchObject({
      ok: true,
      removed: ["old"],
      quarantined: ["sessions/bad.json"],
    });
    expect(team.memory.files(`${DIR}/labels`)).toEqual([`${DIR}/labels/bob.json`]);
    expect(team.memory.nodes.has(`${DIR}/mail/old`)).toBe(false);
    expect(team.memory.nodes.has(`${DIR}/mail/new`)).toBe(true);
    expect(team.memory.files(`${DIR}/quarantine`)).toHaveLength(1);
  });

  it("an expired member's unread mail is moved aside to expired/<day>/<id>/ and reported", async () => {
    const team = setup();
    const roster = await team.open();
    await roster.join(member("old", "alice"));
    await roster.join(member("s2", "bob"));
    await roster.send({ from: "bob", to: "alice", body: "one" });
    await roster.send({ from: "bob", to: "alice", body: "two", id: "m-2" });
    team.advance(DEFAULT_POLICY.ttlMs / 2);
    await roster.heartbeat("s2");
    team.advance(DEFAULT_POLICY.ttlMs / 2 + 1);
    const result = await roster.prune();
    expect(result).toMatchObject({
      ok: true,
      removed: ["old"],
      expiredMail: [{ id: "old", label: "alice", unread: 2, folder: "expired/2026-11-30/old" }],
    });
    expect(team.memory.files(`${DIR}/expired/2026-11-30/old`)).toHaveLength(2);
    expect(team.memory.json(`${DIR}/expired/2026-11-30/old/m-2.json`)).toMatchObject({
      body: "two",
    });
    expect(team.memory.nodes.has(`${DIR}/mail/old`)).toBe(false);
    // Kept for EXPIRED_KEEP_DAYS, then removed.
    team.advance(6 * 86_400_000);
    await roster.heartbeat("s2");
    const early = await roster.prune();
    // The two messages' receipts are a day old by now: those go; the expired mail stays.
    expect(early.ok && early.cleared.filter((name) => !name.startsWith("receipts/"))).toEqual([]);
    team.advance(3 * 86_400_000);
    expect(await roster.prune()).toMatchObject({
      cleared: expect.arrayContaining(["expired/2026-11-30"]),
    });
  });

  it("prune touches only names muster writes, and refuses a folder that is not a team", async () => {
    const team = setup();
    const roster = await team.open();
    team.memory.put(`${DIR}/sessions/notes.txt`, "mine");
    team.memory.put(`${DIR}/locks/README`, "mine");
    team.advance(DEFAULT_POLICY.ttlMs * 2);
    await roster.prune();
    expect(team.memory.files(`${DIR}/sessions`)).toEqual([`${DIR}/sessions/notes.txt`]);
    expect(team.memory.files(`${DIR}/locks`)).toEqual([`${DIR}/locks/README`]);
    team.memory.nodes.delete(`${DIR}/muster-team.json`);
    expect(await roster.prune()).toMatchObject({ ok: false, reason: "not-a-team" });
  });

  it("never removes anything when the roster cannot be read", async () => {
    const team = setup();
    const roster = await team.open();
    await roster.join(member("old", "alice"));
    team.advance(DEFAULT_POLICY.ttlMs + 1);
    team.memory.failOn("readdir", (path) => path.endsWith("/sessions"));
    expect(await roster.prune()).toMatchObject({ ok: false, reason: "roster-unknown" });
    team.memory.heal("readdir");
    expect(team.memory.files(`${DIR}/sessions`)).toEqual([`${DIR}/sessions/old.json`]);
  });

  it("removes wake claims once past WAKE_CLAIM_MS, and only muster's names", async () => {
    const team = setup();
    const roster = await team.open();
    await roster.join(member("s1", "alice"));
    const wake = (key: string) =>
      roster.claim({
        space: "wakes",
        key,
        holder: "mcp-1",
        judge: async () => ({ free: false, held: undefined }),
      });
    expect(await wake("codex-t1.m-1")).toMatchObject({ ok: true });
    team.memory.put(`${DIR}/wakes/notes.txt`, "mine");
    team.memory.put(`${DIR}/wakes/codex-t1.m-9.json`, "{trunc");
    team.advance(WAKE_CLAIM_MS - 1_000);
    expect(await wake("codex-t1.m-2")).toMatchObject({ ok: true });
    await roster.heartbeat("s1");
    // Both are young enough to stop a wake: kept. What does not parse goes to quarantine.
    expect(await roster.prune()).toMatchObject({
      cleared: [],
      quarantined: ["wakes/codex-t1.m-9.json"],
    });
    team.advance(2_000);
    await roster.heartbeat("s1");
    expect(await roster.prune()).toMatchObject({ cleared: ["wakes/codex-t1.m-1.json"] });
    expect(team.memory.files(`${DIR}/wakes`).sort()).toEqual([
      `${DIR}/wakes/codex-t1.m-2.json`,
      `${DIR}/wakes/notes.txt`,
    ]);
  });

  it("clears leftovers of interrupted writes once they are old", async () => {
    const team = setup();
    const roster = await team.open();
    await roster.join(member("s1", "alice"));
    await team.memory.fs.writeFile(`${DIR}/sessions/.x.tmp`, "{", 0o600);
    await team.memory.fs.writeFile(`${DIR}/mail/s1/tmp/m1.json`, "{", 0o600);
    expect(await roster.prune()).toMatchObject({ cleared: [] });
    team.advance(11_000);
    await roster.heartbeat("s1");
    expect(await roster.prune()).toMatchObject({
      cleared: ["sessions/.x.tmp", "mail/s1/tmp/m1.json"],
    });
  });
});
