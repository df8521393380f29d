// The repository's root and core.ignorecase read without git (_repo-facts.ts) must be git's own
// answer whenever it answers at all: each case is asked of real git too. A guard that misread
// core.ignorecase would let a case-changed path past a lease.
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ignoreCaseSaid, readRepoFacts } from "./_repo-facts.js";
import { repoFacts } from "./index.js";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-repo-facts-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let count = 0;
/** A fresh repository with its own HOME: `local` appended to .git/config, `global` as ~/.gitconfig. */
function repository(local = "", global?: string) {
  count += 1;
  const home = path.join(scratch, `home-${count}`);
  const repo = path.join(scratch, `repo-${count}`);
  mkdirSync(home);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home };
  execFileSync("git", ["init", "-q", repo], { env });
  mkdirSync(path.join(repo, "src", "deep"), { recursive: true });
  if (local) appendFileSync(path.join(repo, ".git", "config"), `${local}\n`);
  if (global !== undefined) writeFileSync(path.join(home, ".gitconfig"), `${global}\n`);
  return { repo, home, env };
}

/** Git's own answers for `cwd` under `env`. */
function gitSays(cwd: string, env: NodeJS.ProcessEnv) {
  const ask = (args: string[]) => {
    try {
      return execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: "pipe" }).trim();
    } catch {
      return undefined;
    }
  };
  return {
    root: ask(["rev-parse", "--show-toplevel"]),
    ignoreCase: ask(["config", "--type=bool", "core.ignorecase"]) === "true",
  };
}

/** The reader's answer, checked against git's whenever it gives one. */
function read(cwd: string, env: NodeJS.ProcessEnv) {
  const known = readRepoFacts(cwd, env);
  if (known) expect(known).toEqual(gitSays(cwd, env));
  return known;
}

describe("the repository's facts without git", () => {
  it("a plain repository: its root from any folder inside, case kept", () => {
    const { repo, env } = repository();
    expect(read(repo, env)).toEqual({ root: repo, ignoreCase: false });
    expect(read(path.join(repo, "src", "deep"), env)).toEqual({ root: repo, ignoreCase: false });
  });

  it("core.ignorecase set by the repository, in each spelling git takes", () => {
    for (const [text, ignoreCase] of [
      ["[core]\n\tignorecase = true", true],
      ["[Core]\n  ignoreCase=TRUE ; said", true],
      ["[core]\n\tignorecase", true],
      ["[core]\n\tignorecase = yes\n[core]\n\tignorecase = off", false],
      ["[core]\n\tignorecase = 1", true],
    ] as const) {
      const { repo, env } = repository(text);
      expect(read(repo, env), text).toEqual({ root: repo, ignoreCase });
    }
  });

  it("core.ignorecase from the user's config, the repository's winning", () => {
    const user = repository("", "[core]\n\tignorecase = true");
    expect(read(user.repo, user.env)).toEqual({ root: user.repo, ignoreCase: true });
    const both = repository("[core]\n\tignorecase = false", "[core]\n\tignorecase = true");
    expect(read(both.repo, both.env)).toEqual({ root: both.repo, ignoreCase: false });
    const xdg = repository();
    mkdirSync(path.join(xdg.home, ".config", "git"), { recursive: true });
    writeFileSync(path.join(xdg.home, ".config", "git", "config"), "[core]\nignorecase = on\n");
    expect(read(xdg.repo, xdg.env)).toEqual({ root: xdg.repo, ignoreCase: true });
  });

  it("a relative XDG_CONFIG_HOME: git's (git reads it, from the worktree's top)", () => {
    const { repo, env } = repository();
    mkdirSync(path.join(repo, "cfg", "git"), { recursive: true });
    writeFileSync(path.join(repo, "cfg", "git", "config"), "[core]\n\tignorecase = true\n");
    for (const cwd of [repo, path.join(repo, "src", "deep")])
      expect(read(cwd, { ...env, XDG_CONFIG_HOME: "cfg" })).toBeUndefined();
    // Empty is unset, for git as here: $HOME/.config.
    expect(read(repo, { ...env, XDG_CONFIG_HOME: "" })).toEqual({ root: repo, ignoreCase: false });
  });

  it("what it does not follow is left to git", () => {
    const cases: [string, string | undefined][] = [
      ['[core "sub"]\n\tignorecase = true', undefined],
      ["[core] ignorecase = true", undefined],
      ["[core]\n\tignorecase = 2", undefined],
      ["[core]\n\tignorecase = \\\n true", undefined],
      ["[core.sub]\n\tignorecase = true", undefined],
      ["[core]\n\tworktree = /elsewhere", undefined],
      ["[core]\n\tbare = true", undefined],
      ["", `[include]\n\tpath = ${path.join(scratch, "included")}`],
      ["", '[includeIf "gitdir:~/"]\n\tpath = x'],
      ["[core]\n\tignoreCase = maybe", undefined],
    ];
    writeFileSync(path.join(scratch, "included"), "[core]\n\tignorecase = true\n");
    for (const [local, global] of cases) {
      const { repo, env } = repository(local, global);
      expect(read(repo, env), `${local} / ${global}`).toBeUndefined();
    }
  });

  it("a GIT_* variable, a worktree's .git file, the .git folder itself, no repository: git's", () => {
    const { repo, env } = repository();
    expect(read(repo, { ...env, GIT_DIR: path.join(repo, ".git") })).toBeUndefined();
    expect(read(repo, { ...env, GIT_CONFIG_COUNT: "0" })).toBeUndefined();
    expect(read(repo, { ...env, GIT_CEILING_DIRECTORIES: scratch })).toBeUndefined();
    expect(read(repo, { ...env, GIT_SOMETHING_NEW: "1" })).toBeUndefined();
    // A variable that changes neither (a CA bundle, an author) leaves the reader be.
    expect(read(repo, { ...env, GIT_SSL_CAINFO: "/etc/ssl/ca.crt", GIT_AUTHOR_NAME: "a" })).toEqual(
      {
        root: repo,
        ignoreCase: false,
      },
    );
    expect(read(path.join(repo, ".git"), env)).toBeUndefined();
    execFileSync("git", ["-C", repo, "commit", "-q", "--allow-empty", "-m", "x"], {
      env: {
        ...env,
        GIT_AUTHOR_NAME: "a",
        GIT_AUTHOR_EMAIL: "a@b",
        GIT_COMMITTER_NAME: "a",
        GIT_COMMITTER_EMAIL: "a@b",
      },
    });
    const tree = path.join(scratch, "tree");
    execFileSync("git", ["-C", repo, "worktree", "add", "-q", tree], { env });
    expect(read(tree, env)).toBeUndefined();
    const outside = path.join(scratch, `plain-${count}`);
    mkdirSync(outside);
    expect(read(outside, env)).toBeUndefined();
  });

  it("GIT_CONFIG_NOSYSTEM as git reads it: the system config skipped, else git's", () => {
    const { repo, env } = repository();
    for (const value of ["1", "true", "YES", "on", "0", "false", "off", ""])
      expect(read(repo, { ...env, GIT_CONFIG_NOSYSTEM: value }), value).toEqual({
        root: repo,
        ignoreCase: false,
      });
    // Git reads any other value as a number, or stops: its own to judge.
    for (const value of ["2", " 1", "maybe"])
      expect(read(repo, { ...env, GIT_CONFIG_NOSYSTEM: value }), value).toBeUndefined();
    // Set by the repository, the system config has no say either way.
    const { repo: folded, env: foldedEnv } = repository("[core]\n\tignorecase = true");
    expect(read(folded, { ...foldedEnv, GIT_CONFIG_NOSYSTEM: "1" })).toEqual({
      root: folded,
      ignoreCase: true,
    });
  });

  it("a folder reached through a link: the root as git prints it (links resolved)", () => {
    const { repo, env } = repository();
    const link = path.join(scratch, "link");
    symlinkSync(path.join(repo, "src"), link);
    expect(read(link, env)).toEqual({ root: repo, ignoreCase: false });
  });

  it("repoFacts asks git when the reader cannot answer", async () => {
    const { repo } = repository('[core "sub"]\n\tignorecase = true');
    expect(await repoFacts(repo)).toEqual({ root: repo, ignoreCase: false });
  });
});

describe("core.ignorecase in one config file", () => {
  it("is said, unsaid, or unknown", () => {
    expect(ignoreCaseSaid("")).toBe("unsaid");
    expect(ignoreCaseSaid("[user]\n\tname = ignorecase fan")).toBe("unknown");
    expect(ignoreCaseSaid("# ignorecase = true\n[core]\n")).toBe("unknown");
    expect(ignoreCaseSaid("[core]\n\tfilemode = true\n")).toBe("unsaid");
    expect(ignoreCaseSaid("[core]\n\tignorecase = false # no")).toBe(false);
  });
});
