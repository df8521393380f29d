import { describe, expect, it } from "vitest";
import {
  branchRef,
  isBranchName,
  type LandFacts,
  landMailToMember,
  landQueueLine,
  leasesToRelease,
  mayLand,
  planLand,
  splitNul,
  statusPaths,
} from "./_land.js";
import { compileLeases, type Lease } from "./_lease.js";

describe("who may land whose work", () => {
  it.each([
    ["alice", false, "alice", true],
    ["ALICE", false, "alice", true],
    ["lead", true, "alice", true],
    ["bob", false, "alice", false],
    ["bob", true, "bob", true],
  ])("%s (lead %s) landing %s's work: %s", (label, lead, member, allowed) => {
    const verdict = mayLand({ label, lead }, member);
    expect(mayLand({ label, lead: false, person: true }, member).ok).toBe(true);
    expect(verdict.ok).toBe(allowed);
    if (!verdict.ok) {
      expect(verdict.reason).toBe("not-yours");
      expect(verdict.fix).toContain("lead");
    }
  });
});

describe("the names handed to git", () => {
  it.each([
    ["muster/alice", true],
    ["main", true],
    ["release/1.2", true],
    ["--upload-pack=touch /tmp/pwned", false],
    ["-b", false],
    ["a..b", false],
    ["main@{1}", false],
    ["HEAD", false],
    ["x.lock", false],
    ["a b", false],
    ["a\nb", false],
    ["a/.hidden", false],
    ["", false],
  ])("%j is a branch muster will land: %s", (name, valid) => {
    expect(isBranchName(name)).toBe(valid);
    const ref = branchRef(name);
    expect(ref.ok).toBe(valid);
    if (ref.ok) expect(ref.ref).toBe(`refs/heads/${name}`);
    else expect(ref.error).not.toContain("\n");
  });
});

describe("git's -z lists", () => {
  it("keeps a path with a newline, a tab or an escape whole", () => {
    expect(splitNul("a\nb.txt\0c\td\0\x1b[31mred\0")).toEqual(["a\nb.txt", "c\td", "\x1b[31mred"]);
  });
  it("reads status: modified, untracked, and a rename's both names", () => {
    expect(statusPaths(" M src/a.ts\0?? new\nline\0R  to.ts\0from.ts\0")).toEqual([
      "src/a.ts",
      "new\nline",
      "to.ts",
      "from.ts",
    ]);
  });
});

const lease = (holderId: string, pattern: string, mode: Lease["mode"] = "exclusive"): Lease => ({
  id: `${holderId}-${pattern}`,
  holder: holderId === "alice-id" ? "alice" : "bob",
  holderId,
  pattern,
  mode,
  takenAt: 0,
  expiresAt: Date.parse("2030-01-01T12:00:00Z"),
});

const facts = (overrides: Partial<LandFacts>): LandFacts => ({
  member: "alice",
  branch: "muster/alice",
  base: "main",
  ahead: 1,
  paths: ["src/a.ts"],
  memberId: "alice-id",
  holding: [],
  baseDirty: [],
  ...overrides,
});

describe("what refuses a land before anything moves", () => {
  it.each<[string, Partial<LandFacts>, string | undefined]>([
    ["a clean change", {}, undefined],
    ["nothing ahead", { ahead: 0 }, "nothing-ahead"],
    [
      "a path another member leases",
      { holding: compileLeases([lease("bob-id", "src/**")]) },
      "leased",
    ],
    [
      "the member's own lease",
      { holding: compileLeases([lease("alice-id", "src/**")]) },
      undefined,
    ],
    [
      "a shared lease of another",
      { holding: compileLeases([lease("bob-id", "src/**", "shared")]) },
      undefined,
    ],
    ["a lease elsewhere", { holding: compileLeases([lease("bob-id", "docs/**")]) }, undefined],
    ["a dirty base on a landed path", { baseDirty: ["src/a.ts"] }, "base-dirty"],
    ["a dirty base elsewhere", { baseDirty: ["notes.txt"] }, undefined],
    ["a base not checked out", { baseDirty: undefined }, undefined],
    ["an ignored file of the base on a landed path", { baseIgnored: ["src/a.ts"] }, "base-ignored"],
    ["an ignored file of the base elsewhere", { baseIgnored: [".env"] }, undefined],
  ])("%s", (_, overrides, reason) => {
    const plan = planLand(facts(overrides));
    if (reason === undefined) expect(plan).toEqual({ ok: true, paths: ["src/a.ts"] });
    else {
      expect(plan).toMatchObject({ ok: false, reason });
      if (!plan.ok) expect(plan.error).not.toContain("\n");
    }
  });

  it("names a leased path with a control character escaped, on one line", () => {
    const plan = planLand(
      facts({
        paths: ["src/\x1b]52;evil\n.ts"],
        holding: compileLeases([lease("bob-id", "src/**")]),
      }),
    );
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.error).toContain("bob");
    expect(plan.error).not.toContain("\x1b");
    expect(plan.error).not.toContain("\n");
  });
});

describe("what the member is told", () => {
  const member = { member: "alice", branch: "muster/alice", worktree: "/w/app-alice" };
  it("after a land: the commit, and how to update its branch without a reset", () => {
    const mail = landMailToMember(
      { result: "landed", commit: "0123456789abcdef", base: "main", count: 2, paths: ["a"] },
      member,
    );
    expect(mail).toContain("0123456789ab");
    expect(mail).toContain("git -C /w/app-alice rebase main");
    expect(mail).not.toContain("reset");
  });
  it("after a conflict: the files", () => {
    expect(landMailToMember({ result: "conflict", files: ["src/a.ts"] }, member)).toContain(
      "in src/a.ts",
    );
  });
  it("after a failed check: the command and the output's tail, escaped", () => {
    const mail = landMailToMember(
      {
        result: "check-failed",
        command: "pnpm test\u{e0069}",
        code: 1,
        tail: "FAIL x\n\x1b[2J\u200b\u{e0069}",
      },
      member,
    );
    expect(mail).toContain('"pnpm test\\u{e0069}" failed (1)');
    expect(mail).toContain("FAIL x\n\\x1b[2J\\u200b\\u{e0069}");
  });
});

describe("the land queue line", () => {
  it.each([
    [{ waiting: [] }, undefined],
    [
      {
        landing: { label: "lead", member: "bob" },
        waiting: ["carol"],
        last: { member: "alice", result: "landed" as const, commit: "abcdef0123456789", at: "" },
      },
      "land: lead landing bob; waiting carol; last alice landed abcdef012345",
    ],
  ])("%j", (queue, line) => {
    expect(landQueueLine(queue)).toBe(line);
  });

  it("shows what a planted claim hides: the lands space is any member's to write", () => {
    const hidden = "\u{e0069}\u200b\u202e";
    const queue = {
      landing: { label: `lead${hidden}`, member: `bob${hidden}` },
      waiting: [`carol${hidden}`],
      last: {
        member: `al${hidden}`,
        result: `landed${hidden}` as "landed",
        commit: hidden,
        at: "",
      },
    };
    const line = landQueueLine(queue) ?? "";
    expect(line).not.toMatch(/[\u{e0000}-\u{e007f}\u200b\u202e]/u);
    expect(line).toContain(
      "last al\\u{e0069}\\u200b\\u202e landed\\u{e0069}\\u200b\\u202e \\u{e0069}",
    );
  });
});

describe("the leases a land releases", () => {
  it("releases the member's leases on landed paths only", () => {
    const holding = compileLeases([
      lease("alice-id", "src/**"),
      lease("alice-id", "docs/**"),
      lease("bob-id", "src/a.ts"),
    ]);
    expect(leasesToRelease(["src/a.ts"], holding, "alice-id")).toEqual(["src/**"]);
  });
});
