// muster land against what another process of the user's can plant in git's own folder
// (`<git-common-dir>/muster-land/`, writable by every member's worktree) and what a member's
// commits can carry: a land never writes through a planted link, never removes a worktree it did
// not make, and never overwrites a file the person keeps ignored in the base checkout.
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type LandRepo, makeLandRepo, restoreGitIdentity } from "@muster/test-team";
import { landWork } from "@muster/wiring";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";

let scratch: string;
let repo: LandRepo;
beforeEach(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), "muster-land-planted-"));
  repo = await makeLandRepo(scratch);
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

const lead = { label: "lead", id: "lead-id", person: true };
const land = (target: string, extra: Partial<Parameters<typeof landWork>[1]> = {}) =>
  landWork(
    { roster: repo.roster, teamDir: repo.teamDir, cwd: repo.main },
    { target, lander: lead, noCheck: true, ...extra },
  );
const head = (ref = "main") => repo.git(repo.main, "rev-parse", ref);
const landFolder = () => path.join(repo.main, ".git", "muster-land");

describe("muster land, with files planted in git's folder", () => {
  it("a check's log planted as a link to the person's file: the file keeps every byte", async () => {
    const alice = await repo.addMember("alice");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" });
    const mine = path.join(scratch, "bashrc");
    writeFileSync(mine, "the person's own file\n");
    mkdirSync(landFolder(), { recursive: true });
    symlinkSync(mine, path.join(landFolder(), "alice.log"));
    const answer = await land("alice", { noCheck: false, check: "echo check-output" });
    expect(answer).toMatchObject({ ok: true, outcome: { result: "landed" } });
    expect(readFileSync(mine, "utf8")).toBe("the person's own file\n");
  });

  it("a check's log planted as a hard link to the person's file: the file keeps every byte", async () => {
    const alice = await repo.addMember("alice");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" });
    const mine = path.join(scratch, "profile");
    writeFileSync(mine, "the person's own file\n");
    mkdirSync(landFolder(), { recursive: true });
    linkSync(mine, path.join(landFolder(), "alice.log"));
    const answer = await land("alice", { noCheck: false, check: "echo check-output" });
    expect(answer).toMatchObject({ ok: true, outcome: { result: "landed" } });
    expect(readFileSync(mine, "utf8")).toBe("the person's own file\n");
    if (answer.ok) expect(readFileSync(answer.log!, "utf8")).toBe("check-output\n");
  });

  it("a fast-forward note planted under the land's own name as a link: the person's file keeps every byte", async () => {
    const alice = await repo.addMember("alice");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" });
    const mine = path.join(scratch, "notes.txt");
    writeFileSync(mine, "the person's notes\n");
    mkdirSync(landFolder(), { recursive: true });
    // The land runs in this process: its note is ff-<this pid>.json.
    symlinkSync(mine, path.join(landFolder(), `ff-${process.pid}.json`));
    expect(await land("alice")).toMatchObject({ ok: true, outcome: { result: "landed" } });
    expect(readFileSync(mine, "utf8")).toBe("the person's notes\n");
  });

  it("a scratch worktree's name planted as a link to a member's worktree: that worktree stays", async () => {
    const alice = await repo.addMember("alice");
    const bob = await repo.addMember("bob");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" });
    writeFileSync(path.join(bob.worktree, "wip.txt"), "bob's uncommitted work\n");
    mkdirSync(landFolder(), { recursive: true });
    symlinkSync(bob.worktree, path.join(landFolder(), "1-deadbeef"));
    expect(await land("alice")).toMatchObject({ ok: true, outcome: { result: "landed" } });
    expect(readFileSync(path.join(bob.worktree, "wip.txt"), "utf8")).toBe(
      "bob's uncommitted work\n",
    );
    expect(repo.git(repo.main, "worktree", "list")).toContain(bob.worktree);
  });

  it("a planted scratch folder with no owner is removed without following what it holds", async () => {
    const alice = await repo.addMember("alice");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" });
    const mine = path.join(scratch, "keep");
    mkdirSync(mine);
    writeFileSync(path.join(mine, "file"), "kept\n");
    mkdirSync(path.join(landFolder(), "2-deadbeef"), { recursive: true });
    symlinkSync(mine, path.join(landFolder(), "2-deadbeef", "inside"));
    expect(await land("alice")).toMatchObject({ ok: true });
    expect(readFileSync(path.join(mine, "file"), "utf8")).toBe("kept\n");
  });
  it("git's land folder planted as a link to the person's folder: nothing there is touched", async () => {
    const alice = await repo.addMember("alice");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" });
    const mine = path.join(scratch, "home");
    mkdirSync(path.join(mine, "3-deadbeef"), { recursive: true });
    writeFileSync(path.join(mine, "alice.log"), "the person's log\n");
    writeFileSync(path.join(mine, "3-deadbeef", "notes"), "kept\n");
    symlinkSync(mine, landFolder());
    const before = head();
    const answer = await land("alice", { noCheck: false, check: "echo check-output" });
    expect(answer).toMatchObject({ ok: false, reason: "land-failed" });
    if (!answer.ok) expect(answer.error).toContain("link");
    expect(head()).toBe(before);
    expect(readFileSync(path.join(mine, "alice.log"), "utf8")).toBe("the person's log\n");
    expect(readFileSync(path.join(mine, "3-deadbeef", "notes"), "utf8")).toBe("kept\n");
  });
});

describe("muster land, with a member's commits", () => {
  it("a commit of a file the base checkout keeps ignored does not overwrite it", async () => {
    repo.commit(repo.main, { ".gitignore": ".env\n" });
    const alice = await repo.addMember("alice");
    writeFileSync(path.join(repo.main, ".env"), "SECRET=mine\n");
    writeFileSync(path.join(alice.worktree, ".env"), "SECRET=theirs\n");
    repo.git(alice.worktree, "add", "-f", ".env");
    repo.git(alice.worktree, "commit", "-q", "-m", "env");
    const before = head();
    const answer = await land("alice");
    expect(readFileSync(path.join(repo.main, ".env"), "utf8")).toBe("SECRET=mine\n");
    if (answer.ok) expect(answer.outcome).not.toMatchObject({ result: "landed" });
    else expect(answer.error).toContain(".env");
    expect(head()).toBe(before);
  });

  it.each([
    ["ignored", "build/\n"],
    ["untracked", "other\n"],
  ])(
    "a commit of a file where the base checkout keeps an %s folder leaves that folder whole",
    async (_, ignore) => {
      repo.commit(repo.main, { ".gitignore": ignore });
      const alice = await repo.addMember("alice");
      mkdirSync(path.join(repo.main, "build", "deep"), { recursive: true });
      writeFileSync(path.join(repo.main, "build", "deep", "out.js"), "the person's build\n");
      repo.commit(alice.worktree, { build: "a file now\n" });
      const before = head();
      const answer = await land("alice");
      expect(readFileSync(path.join(repo.main, "build", "deep", "out.js"), "utf8")).toBe(
        "the person's build\n",
      );
      if (answer.ok) expect(answer.outcome).not.toMatchObject({ result: "landed" });
      expect(head()).toBe(before);
    },
  );

  it("a branch that rewrote its history lands on top of the base, never in place of it", async () => {
    const alice = await repo.addMember("alice");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" }, "first a");
    expect(await land("alice")).toMatchObject({ ok: true, outcome: { result: "landed" } });
    const landed = head();
    // Rewritten: back to before the base's first commit's child, then a commit deleting files.
    repo.git(alice.worktree, "reset", "-q", "--hard", `${landed}~1`);
    repo.git(alice.worktree, "rm", "-q", "README.md");
    repo.git(alice.worktree, "commit", "-q", "-m", "rewrite");
    const answer = await land("alice");
    expect(answer).toMatchObject({ ok: true, outcome: { result: "landed" } });
    // The base only moved forward: what it had is still in its history.
    repo.git(repo.main, "merge-base", "--is-ancestor", landed, "main");
    expect(readFileSync(path.join(repo.main, "src/a.ts"), "utf8")).toBe("a\n");
  });

  it("a branch with no history in common with the base is refused; the base stays", async () => {
    const alice = await repo.addMember("alice");
    repo.git(alice.worktree, "checkout", "-q", "--orphan", "tmp");
    repo.git(alice.worktree, "rm", "-rq", "--cached", ".");
    repo.commit(alice.worktree, { "other.txt": "x\n" }, "orphan");
    repo.git(alice.worktree, "branch", "-f", "muster/alice", "HEAD");
    repo.git(alice.worktree, "checkout", "-q", "muster/alice");
    const before = head();
    const answer = await land("alice");
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error).toContain("shares no history");
    expect(head()).toBe(before);
  });

  it("a commit that replaces a folder of the base with a link does not write through it", async () => {
    const alice = await repo.addMember("alice");
    const outside = path.join(scratch, "outside");
    mkdirSync(outside);
    rmSync(path.join(alice.worktree, "src"), { recursive: true });
    symlinkSync(outside, path.join(alice.worktree, "src"));
    repo.git(alice.worktree, "add", "-A");
    repo.git(alice.worktree, "commit", "-q", "-m", "link");
    repo.commit(alice.worktree, { "lib/x.ts": "x\n" });
    const answer = await land("alice");
    expect(answer).toMatchObject({ ok: true, outcome: { result: "landed" } });
    expect(lstatSync(path.join(repo.main, "src")).isSymbolicLink()).toBe(true);
    expect(existsSync(path.join(outside, "shared.ts"))).toBe(false);
  });
});

// The worker runs other test files after this one: the identity makeLandRepo set goes.
afterAll(restoreGitIdentity);
