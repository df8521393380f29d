import { describe, expect, it } from "vitest";
import {
  errorLine,
  type WorktreeAfterStop,
  type WorktreeEntry,
  worktreeAfterStop,
  worktreeMark,
  worktreeRemovedLine,
} from "./index.js";
import { madeWorktree, parseWorktreeList, planWorktree, resumePlace } from "./internal.js";

const LIST = `worktree /src/repo
HEAD 51c1e23e05da193731e7db4cb975d6f561bf6351
branch refs/heads/main

worktree /src/repo-old
HEAD 2861e5a3adc1cb57f3bf31b9284ee8cb0480bc86
detached

worktree /src/repo-bob
HEAD c170402d5223ede85fcc790faeaa85ab1097a23b
branch refs/heads/muster/bob
`;

describe("parseWorktreeList", () => {
  it("reads git's porcelain: the main checkout first, detached ones with no branch", () => {
    expect(parseWorktreeList(LIST)).toEqual([
      { path: "/src/repo", branch: "main" },
      { path: "/src/repo-old", branch: undefined },
      { path: "/src/repo-bob", branch: "muster/bob" },
    ]);
  });
});

describe("madeWorktree", () => {
  const entries = parseWorktreeList(LIST);
  it.each<[string, string, string | undefined, string | undefined]>([
    ["the one planWorktree would make, made already", "bob", undefined, "/src/repo-bob"],
    ["on the branch asked for: another branch there is not it", "bob", "feature/x", undefined],
    ["none made", "carol", undefined, undefined],
    ["a detached worktree at the path is not it", "old", undefined, undefined],
  ])("%s", (_, label, branch, expected) => {
    expect(madeWorktree(entries, label, branch)?.path).toBe(expected);
  });

  it("the main checkout is never a member's, even on the branch asked for", () => {
    expect(
      madeWorktree(parseWorktreeList("worktree /src/repo\nbranch refs/heads/x\n"), "a", "x"),
    ).toBeUndefined();
  });
});

describe("planWorktree", () => {
  const entries = parseWorktreeList(LIST);
  it.each<[string, readonly WorktreeEntry[], string, string | undefined, string]>([
    [
      "beside the main checkout, on muster/<label>",
      entries,
      "carol",
      undefined,
      "ok /src/repo-carol muster/carol",
    ],
    ["on the branch asked for", entries, "carol", "feature/x", "ok /src/repo-carol feature/x"],
    ["a branch checked out elsewhere is refused", entries, "dan", "main", "branch-checked-out"],
    [
      "so is the default branch of a label spawned before",
      entries,
      "bob",
      undefined,
      "branch-checked-out",
    ],
    ["a path where a worktree sits", entries, "old", "other", "path-taken"],
    ["a branch that is an option", entries, "eve", "--force", "bad-branch"],
    ["a branch with ..", entries, "eve", "a/../b", "bad-branch"],
    ["outside a repository", [], "eve", undefined, "no-repository"],
  ])("%s", (_, list, label, branch, expected) => {
    const plan = planWorktree(list, label, branch);
    expect(plan.ok ? `ok ${plan.path} ${plan.branch}` : plan.reason).toBe(expected);
  });

  it("the refusal names the worktree that holds the branch, and its fix names no flag", () => {
    const plan = planWorktree(entries, "dan", "main");
    expect(!plan.ok && errorLine(plan)).toBe(
      "branch main is checked out in /src/repo; name another branch, or start the agent in that worktree",
    );
  });

  it.each<[string, readonly WorktreeEntry[], string, string | undefined, string]>([
    [
      "outside a repository",
      [],
      "eve",
      undefined,
      "a worktree needs a git repository, and none is here; start it from inside one",
    ],
    [
      "a bad branch",
      entries,
      "eve",
      "--force",
      `"--force" is not a branch name muster will create; use letters, digits, '.', '_', '-' and '/'`,
    ],
    [
      "a path taken",
      entries,
      "old",
      "other",
      "a worktree already sits at /src/repo-old; stop its agent and remove it (git worktree remove), or pick another label",
    ],
  ])("%s: the error, then its fix", (_, list, label, branch, line) => {
    const plan = planWorktree(list, label, branch);
    expect(!plan.ok && errorLine(plan)).toBe(line);
  });
});

/** The line a decision says, whichever action it is. */
const lineOf = (decision: WorktreeAfterStop) => ("line" in decision ? decision.line : undefined);

describe("worktreeAfterStop: what stop does with a spawned member's worktree", () => {
  const worktree = { label: "bob", path: "/src/app-bob", branch: "muster/bob" };
  const mark = worktreeMark(worktree);
  const entries = [
    { path: "/src/app", branch: "main" },
    { path: "/src/app-bob", branch: "muster/bob" },
  ];

  it("a clean one is removed; its branch stays", () => {
    expect(worktreeAfterStop(worktree, { entries, changes: 0, mark })).toEqual({
      action: "remove",
      path: worktree.path,
      branch: worktree.branch,
    });
    expect(worktreeRemovedLine(worktree)).toMatch(/branch muster\/bob stays with its commits/);
  });

  it("one with uncommitted changes is kept, with how to finish it", () => {
    const kept = worktreeAfterStop(worktree, { entries, changes: 3, mark });
    expect(kept).toMatchObject({ action: "keep" });
    expect(lineOf(kept)).toMatch(/3 uncommitted change\(s\) there .*git worktree remove --force/);
  });

  it("keep asked: even a clean one stays, said so", () => {
    const kept = worktreeAfterStop(worktree, { entries, changes: 0, mark }, true);
    expect(kept).toMatchObject({ action: "keep" });
    expect(lineOf(kept)).toMatch(
      /kept \(no uncommitted changes\): git worktree remove \/src\/app-bob/,
    );
  });

  it("git could not answer: kept, never removed", () => {
    expect(worktreeAfterStop(worktree, { entries: undefined, changes: 0, mark }).action).toBe(
      "keep",
    );
    expect(worktreeAfterStop(worktree, { entries, changes: undefined, mark }).action).toBe("keep");
  });

  it("a record naming the main checkout, another folder, or another branch removes nothing", () => {
    const main = { label: "bob", path: "/src/app", branch: "main" };
    expect(worktreeAfterStop(main, { entries, changes: 0, mark }).action).toBe("none");
    const elsewhere = { label: "bob", path: "/home/me/precious", branch: "muster/bob" };
    expect(worktreeAfterStop(elsewhere, { entries, changes: 0, mark }).action).toBe("none");
    const moved = worktreeAfterStop(worktree, {
      entries: [entries[0]!, { path: "/src/app-bob", branch: "feature" }],
      changes: 0,
      mark,
    });
    expect(moved).toMatchObject({ action: "keep" });
    expect(lineOf(moved)).toMatch(/has feature out now/);
  });

  // The record is a file another process can write: it names a worktree, muster's mark proves it.
  it.each([
    ["no mark", undefined],
    ["another member's mark", worktreeMark({ ...worktree, label: "carl" })],
    ["the mark with a byte more", `${mark} `],
  ])("a clean worktree with %s is kept, said so in one line", (_name, planted) => {
    const kept = worktreeAfterStop(worktree, { entries, changes: 0, mark: planted });
    expect(kept).toEqual({
      action: "keep",
      path: worktree.path,
      branch: worktree.branch,
      line: "its worktree /src/app-bob is kept: muster finds no mark there that it made it for bob (a spawn record alone does not prove it); git worktree remove /src/app-bob removes it",
    });
  });
});

describe("resumePlace: where up brings a member back, from a record another process may write", () => {
  const entries = [
    { path: "/src/app", branch: "main" },
    { path: "/src/app-bob", branch: "muster/bob" },
  ];
  it.each<[string, Parameters<typeof resumePlace>[1], ReturnType<typeof resumePlace>]>([
    [
      "its worktree, listed on its branch",
      { cwd: "/src/app-bob", worktree: { path: "/src/app-bob", branch: "muster/bob" } },
      { worktree: { path: "/src/app-bob", branch: "muster/bob" }, cwd: "/src/app-bob" },
    ],
    ["a folder inside the main checkout", { cwd: "/src/app/docs" }, { cwd: "/src/app/docs" }],
    [
      "a worktree git does not list (another repository)",
      { cwd: "/home/me/other", worktree: { path: "/home/me/other", branch: "x" } },
      {
        note: 'its spawn record named a worktree git does not list on that branch ("/home/me/other" on x): started where muster.toml declares it',
      },
    ],
    [
      "a listed worktree on another branch",
      { cwd: "/src/app-bob", worktree: { path: "/src/app-bob", branch: "main" } },
      {
        note: 'its spawn record named a worktree git does not list on that branch ("/src/app-bob" on main): started where muster.toml declares it',
      },
    ],
    [
      "a folder whose name only begins like the checkout's",
      { cwd: "/src/app-evil" },
      {
        note: 'its spawn record named a folder outside this repository ("/src/app-evil"): started where muster.toml declares it',
      },
    ],
    ["a folder that is gone", { cwd: undefined }, {}],
  ])("%s", (_, record, place) => {
    expect(resumePlace(entries, record)).toEqual(place);
  });
});
