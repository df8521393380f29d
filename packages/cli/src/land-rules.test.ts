// muster land and diff over real git: two members land different files and the base has both,
// the check ran on each result; a conflict and a failing check leave the base untouched and mail
// the member; refusals before anything moves; hostile names and a symlinked worktree; a base moved
// during the check is never fast-forwarded over; two lands at once take turns.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type LandRepo, makeLandRepo, restoreGitIdentity } from "@muster/test-team";
import {
  addCard,
  changeCard,
  landWork,
  memberDiff,
  readBoard,
  readSpawnRecord,
  setLead,
  teamBoard,
  writeSpawnRecord,
} from "@muster/wiring";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";

let scratch: string;
let repo: LandRepo;
beforeEach(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), "muster-land-"));
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
const inbox = async (id: string) => {
  const read = await repo.roster.receive(id);
  return read.ok ? read.messages.map((message) => message.body) : [];
};

describe("muster diff", () => {
  it("shows the commits ahead, the files and the patch; uncommitted work apart, not taken", async () => {
    const alice = await repo.addMember("alice");
    repo.commit(alice.worktree, { "src/a.ts": "export const a = 1;\n" }, "add a");
    writeFileSync(path.join(alice.worktree, "wip.txt"), "not yet\n");
    const diff = await memberDiff({ cwd: repo.main, teamDir: repo.teamDir }, "alice");
    expect(diff).toMatchObject({
      ok: true,
      branch: "muster/alice",
      base: "main",
      files: ["src/a.ts"],
      uncommitted: ["wip.txt"],
    });
    if (!diff.ok) return;
    expect(diff.commits.map((each) => each.subject)).toEqual(["add a"]);
    expect(diff.patch).toContain("+export const a = 1;");
    expect(diff.patch).not.toContain("not yet");
  });
});

describe("a mistyped member", () => {
  it("diff and land name the member with a worktree it most likely meant", async () => {
    await repo.addMember("alice");
    const diff = await memberDiff({ cwd: repo.main, teamDir: repo.teamDir }, "alcie");
    expect(diff).toMatchObject({ ok: false, reason: "no-worktree", suggestion: "alice" });
    if (!diff.ok) expect(diff.fix).toMatch(/^did you mean "alice"\? /);
    expect(await land("alcie")).toMatchObject({ ok: false, suggestion: "alice" });
  });
});

describe("muster land", () => {
  it("lands two members' different files; the base has both, checked on each result", async () => {
    const alice = await repo.addMember("alice");
    const bob = await repo.addMember("bob");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" }, "alice's a");
    repo.commit(bob.worktree, { "src/b.ts": "b\n" }, "bob's b");
    const aliceTip = head("muster/alice");
    const check = `ls src > "${scratch}/checked-$(git rev-parse HEAD)"`;
    const first = await land("alice", { noCheck: false, check });
    const second = await land("bob", { noCheck: false, check });
    expect(first).toMatchObject({ ok: true, outcome: { result: "landed" } });
    expect(second).toMatchObject({ ok: true, outcome: { result: "landed", commit: head() } });
    expect(readFileSync(path.join(repo.main, "src/a.ts"), "utf8")).toBe("a\n");
    expect(readFileSync(path.join(repo.main, "src/b.ts"), "utf8")).toBe("b\n");
    expect(repo.git(repo.main, "status", "--porcelain")).toBe("");
    expect(readFileSync(path.join(scratch, `checked-${head()}`), "utf8")).toContain("b.ts");
    expect(head("muster/alice")).toBe(aliceTip);
    expect((await inbox(alice.id)).join("\n")).toContain(`rebase main`);
    expect(repo.git(repo.main, "worktree", "list")).not.toContain(".git/muster-land");
  });

  it("green: the card is done, the member's leases on landed paths released, the lead told", async () => {
    const alice = await repo.addMember("alice");
    const boss = await repo.addMember("boss");
    const team = teamBoard(repo.roster);
    const actor = { label: "alice", id: alice.id };
    const added = await addCard(team, actor, { title: "add a" });
    expect(added).toMatchObject({ ok: true });
    expect(await changeCard(team, actor, { kind: "claim", card: "c1" })).toMatchObject({
      ok: true,
    });
    expect(await setLead(team, { label: "boss", id: boss.id }, "boss")).toMatchObject({ ok: true });
    const lease = (pattern: string) =>
      repo.roster.takeLease(
        { holderId: alice.id, holder: "alice", pattern, mode: "exclusive", ttlMs: 60_000 },
        () => true,
        () => ({ ok: true }),
      );
    await lease("src/**");
    await lease("docs/**");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" });
    expect(await land("c1")).toMatchObject({ ok: true, card: "c1", outcome: { result: "landed" } });
    const read = await readBoard(team, alice.id);
    expect(read.ok && read.board.cards.get("c1")?.state).toBe("done");
    const leases = await repo.roster.leases(() => true);
    expect(leases.ok && leases.leases.map((each) => each.pattern)).toEqual(["docs/**"]);
    expect((await inbox(boss.id)).join("\n")).toContain("Landed alice's muster/alice on main");
  });

  it("a check from muster.toml runs only once the person confirmed it, once per repository and command", async () => {
    const alice = await repo.addMember("alice");
    repo.commit(repo.main, { "muster.toml": '[land]\ncheck = "touch ../check-ran"\n' });
    repo.commit(alice.worktree, { "src/a.ts": "a\n" });
    const env = { ...process.env, XDG_CONFIG_HOME: path.join(scratch, "config") };
    const effects = { roster: repo.roster, teamDir: repo.teamDir, cwd: repo.main, env };
    const asked: string[] = [];
    const ask = (answer: boolean) => async (command: string) => {
      asked.push(command);
      return answer;
    };
    const request = { target: "alice", lander: lead };
    expect(await landWork(effects, request)).toMatchObject({
      ok: false,
      reason: "check-untrusted",
    });
    expect(await landWork(effects, { ...request, confirm: ask(false) })).toMatchObject({
      ok: false,
      reason: "check-untrusted",
    });
    expect(existsSync(path.join(scratch, "config", "muster", "land-checks.json"))).toBe(false);
    expect(await landWork(effects, { ...request, confirm: ask(true) })).toMatchObject({
      ok: true,
      check: "touch ../check-ran",
    });
    expect(asked).toEqual(["touch ../check-ran", "touch ../check-ran"]);
    repo.commit(alice.worktree, { "src/b.ts": "b\n" });
    // Confirmed once: not asked again for this repository and command.
    expect(await landWork(effects, { ...request, confirm: ask(false) })).toMatchObject({
      ok: true,
      outcome: { result: "landed" },
    });
    expect(asked).toHaveLength(2);
  });

  it("a conflict leaves the base untouched and mails the member the files", async () => {
    const alice = await repo.addMember("alice");
    repo.commit(alice.worktree, { "src/shared.ts": "alice\n" });
    repo.commit(repo.main, { "src/shared.ts": "main\n" });
    const before = head();
    const answer = await land("alice");
    expect(answer).toMatchObject({
      ok: true,
      outcome: { result: "conflict", files: ["src/shared.ts"] },
    });
    expect(head()).toBe(before);
    expect((await inbox(alice.id)).join("\n")).toContain("src/shared.ts");
  });

  it("a failing check leaves the base untouched and mails the output's tail", async () => {
    const alice = await repo.addMember("alice");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" });
    const before = head();
    const answer = await land("alice", { noCheck: false, check: "echo the-tail-line; exit 3" });
    expect(answer).toMatchObject({ ok: true, outcome: { result: "check-failed", code: 3 } });
    expect(head()).toBe(before);
    expect((await inbox(alice.id)).join("\n")).toContain("the-tail-line");
  });

  it("a base moved during the check is not fast-forwarded over: the land is tried on the new base", async () => {
    const alice = await repo.addMember("alice");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" });
    const marker = path.join(scratch, "moved-once");
    // The first check commits on main (as a person would) and passes: the swap must fail once.
    const check = `test -e "${marker}" || { touch "${marker}"; cd "${repo.main}" && echo p > person.txt && git add person.txt && git commit -qm person; }`;
    const answer = await land("alice", { noCheck: false, check });
    expect(answer).toMatchObject({ ok: true, outcome: { result: "landed" } });
    expect(repo.git(repo.main, "log", "--format=%s", "main")).toContain("person");
    expect(repo.git(repo.main, "ls-tree", "--name-only", "-r", "main")).toContain("src/a.ts");
  });

  it.each([
    ["nothing ahead", async () => undefined, "nothing-ahead"],
    [
      "a path another member leases",
      async () => {
        repo.commit((await readSpawnRecord({ dir: repo.teamDir }, "alice"))!.cwd, {
          "src/a.ts": "a\n",
        });
        const bob = await repo.addMember("bob");
        await repo.roster.takeLease(
          { holderId: bob.id, holder: "bob", pattern: "src/**", mode: "exclusive", ttlMs: 60_000 },
          () => true,
          () => ({ ok: true }),
        );
      },
      "leased",
    ],
    [
      "a dirty base checkout on a landed path",
      async () => {
        repo.commit((await readSpawnRecord({ dir: repo.teamDir }, "alice"))!.cwd, {
          "src/a.ts": "a\n",
        });
        writeFileSync(path.join(repo.main, "src/a.ts"), "mine\n");
      },
      "base-dirty",
    ],
  ])("refuses at once: %s", async (_, arrange, reason) => {
    await repo.addMember("alice");
    await arrange();
    const before = head();
    expect(await land("alice")).toMatchObject({ ok: false, reason });
    expect(head()).toBe(before);
  });

  it("a member may land its own work, not another's", async () => {
    const alice = await repo.addMember("alice");
    await repo.addMember("bob");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" });
    expect(await land("alice", { lander: { label: "bob", id: "peer-bob" } })).toMatchObject({
      ok: false,
      reason: "not-yours",
    });
    expect(await land("alice", { lander: { label: "alice", id: alice.id } })).toMatchObject({
      ok: true,
    });
  });

  it("refuses a record whose branch is a git option, or whose worktree is a symlink", async () => {
    const alice = await repo.addMember("alice");
    const record = (await readSpawnRecord({ dir: repo.teamDir }, "alice"))!;
    await writeSpawnRecord(
      { dir: repo.teamDir },
      { ...record, worktree: { path: alice.worktree, branch: "--upload-pack=touch pwned" } },
    );
    expect(await land("alice")).toMatchObject({ ok: false, reason: "bad-branch" });
    const link = path.join(scratch, "link");
    symlinkSync(alice.worktree, link);
    await writeSpawnRecord(
      { dir: repo.teamDir },
      { ...record, worktree: { path: link, branch: "muster/alice" } },
    );
    expect(await land("alice")).toMatchObject({ ok: false, reason: "no-worktree" });
  });

  it("lands a path with a newline and an escape in its name, named escaped", async () => {
    const alice = await repo.addMember("alice");
    repo.commit(alice.worktree, { "odd\nname\x1b[31m.txt": "x\n" });
    const answer = await land("alice");
    expect(answer).toMatchObject({
      ok: true,
      outcome: { result: "landed", paths: ["odd\nname\x1b[31m.txt"] },
    });
  });

  it("two lands at once take turns: --no-wait is told who is landing", async () => {
    const alice = await repo.addMember("alice");
    const bob = await repo.addMember("bob");
    repo.commit(alice.worktree, { "src/a.ts": "a\n" });
    repo.commit(bob.worktree, { "src/b.ts": "b\n" });
    const lines: string[] = [];
    const first = land("alice", { noCheck: false, check: "sleep 1" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await land("bob", { noWait: true })).toMatchObject({ ok: false, reason: "landing" });
    const second = land("bob", { progress: (line) => lines.push(line) });
    expect(await first).toMatchObject({ ok: true, outcome: { result: "landed" } });
    expect(await second).toMatchObject({ ok: true, outcome: { result: "landed" } });
    expect(lines.join("\n")).toContain("waiting to land: lead is landing alice's work");
  });
});

// The worker runs other test files after this one: the identity makeLandRepo set goes.
afterAll(restoreGitIdentity);
