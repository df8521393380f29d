// One member through every door, the git hook included (issue 41, "the person's own lease"): a
// table of door × who commits → member id, with real git, muster's real git hook, and husky
// 9.1.7's and lefthook 2.2.1's real scripts. Who commits: the person's shell in a private tmux
// pane (each command typed into it), and three engines that person started from that shell, each
// a real long-lived process named as the engine whose tool calls are its children, as the engine
// runs them (test/engine-tools.sh): pi's bash tool (`bash -c`, PI_SESSION_ID), Claude Code's Bash
// tool, and Codex's shell tool in its Linux sandbox (pid 1 of a pid namespace of its own,
// CODEX_THREAD_ID). Each holds a lease on a file of its own. Its own commit of it passes, and the
// hook resolves the commit to the member that leased (a probe beside the guard records the id);
// each engine's commit of the person's src/parser.js is refused naming the person's label (the
// engines run below the person's shell: the rule must not hand them the person's lease), and the
// person's commit of pi's file is refused naming pi's.
import { execFile } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { appendFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  eventually,
  LONG_TESTS,
  type PrivateTmux,
  startPrivateTmux,
  tmuxEnv,
} from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const TOOLS = path.resolve(import.meta.dirname, "..", "test", "engine-tools.sh");
const modules = path.resolve(import.meta.dirname, "..", "node_modules");
const HUSKY = path.join(modules, "husky", "bin.js");
const LEFTHOOK = path.join(modules, "lefthook", "bin", "index.js");
const SESSION = "01934a2b-7c3d-7e4f-8a9b-0c1d2e3f4a5b";
const THREAD = "01a22ae4-26be-7480-acf3-78282d1c9f00";
const execute = promisify(execFile);
const q = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
/** Beside the guard: the member this hook's commands resolve to, as `muster heartbeat` says. */
const PROBE = 'muster heartbeat --json > "$(git rev-parse --git-dir)/who.json" || true';

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-commit-id-")));
const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

type Setup = {
  sh: (script: string) => Promise<unknown>;
  write: (file: string, text: string) => void;
};

/**
 * The doors a commit reaches muster through, each set up in a fresh repository (some seconds each,
 * on a quiet machine): `pnpm test` takes muster's own hook, `pnpm test:long` every one; core's
 * caller.test.ts has each door's process tree.
 */
const DOORS: [string, (repo: Setup) => Promise<unknown>, "long"?][] = [
  [
    "muster install git-hook (.git/hooks)",
    async ({ sh, write }) => {
      write(".git/hooks/pre-commit", `#!/bin/sh\n${PROBE}\n`);
      await sh("muster install git-hook");
    },
  ],
  [
    "husky 9: muster install git-hook, then husky's scripts",
    async ({ sh, write }) => {
      await sh(`${q(process.execPath)} ${q(HUSKY)}`);
      write(".husky/pre-commit", `${PROBE}\n`);
      await sh("muster install git-hook");
    },
    "long",
  ],
  [
    "husky 9: muster guard in .husky/pre-commit",
    async ({ sh, write }) => {
      await sh(`${q(process.execPath)} ${q(HUSKY)}`);
      write(".husky/pre-commit", `muster guard\n${PROBE}\n`);
    },
    "long",
  ],
  [
    "lefthook 2: muster guard in lefthook.yml",
    async ({ sh, write }) => {
      write(
        "lefthook.yml",
        `pre-commit:\n  commands:\n    guard:\n      run: muster guard && { ${PROBE}; }\n`,
      );
      await sh(`${q(process.execPath)} ${q(LEFTHOOK)} install`);
    },
    "long",
  ],
];

type Done = { code: number; out: string };
const WHO = ["person", "pi", "claude", "codex"] as const;
type Who = (typeof WHO)[number];
/** Each one's own leased file. */
const FILES: Record<Who, string> = {
  person: "src/parser.js",
  pi: "src/pi.js",
  claude: "src/claude.js",
  codex: "src/codex.js",
};

/** Wait for call `n`'s exit code in `dir`, then read its output. */
async function answer(dir: string, n: number): Promise<Done> {
  const rc = path.join(dir, `${n}.rc`);
  await eventually(
    () => existsSync(rc),
    (there) => there,
    `${rc}: ${existsSync(path.join(dir, `${n}.out`)) ? readFileSync(path.join(dir, `${n}.out`), "utf8") : ""}`,
    { attempts: 1200, intervalMs: 25 },
  );
  return {
    code: Number(readFileSync(rc, "utf8")),
    out: readFileSync(path.join(dir, `${n}.out`), "utf8"),
  };
}

/** A repository with the door's hooks, the person's pane, and the three engines started in it. */
async function team(setup: (repo: Setup) => Promise<unknown>) {
  const home = mkdtempSync(path.join(scratch, "door-"));
  const repo = path.join(home, "repo");
  const bin = path.join(home, "bin");
  mkdirSync(path.join(repo, "src"), { recursive: true });
  mkdirSync(bin);
  writeFileSync(
    path.join(bin, "muster"),
    `#!/bin/sh\nexec ${q(process.execPath)} ${q(MUSTER)} "$@"\n`,
    { mode: 0o755 },
  );
  // Git refuses a repository another user owns; in the sandbox's user namespace the owner is
  // mapped to root, whoever runs the tests.
  writeFileSync(
    path.join(home, ".gitconfig"),
    "[safe]\n\tdirectory = *\n[user]\n\tname = t\n\temail = t@t\n",
  );
  const env = {
    HOME: home,
    PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH}`,
    MUSTER_TEAM_DIR: path.join(home, "team"),
    MUSTER_LABEL: undefined,
    MUSTER_GUARD: undefined,
    PS1: "$ ",
  };
  const shellEnv = tmuxEnv(env);
  /** Run a script in the repository from this test (no member): set-up and reading. */
  const sh = (script: string) =>
    execute("sh", ["-c", script], { cwd: repo, env: shellEnv }).then((done) => done.stdout);
  for (const file of Object.values(FILES)) writeFileSync(path.join(repo, file), "start\n");
  await sh("git init -q -b main . && git add -A && git commit -q -m start");
  await setup({
    sh,
    write: (file, text) => {
      mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
      writeFileSync(path.join(repo, file), text);
      chmodSync(path.join(repo, file), 0o755);
    },
  });
  // Hook files the door added are the repository's own, committed without running them.
  await sh("git add -A && { git diff --cached --quiet || git commit -q --no-verify -m hooks; }");

  const tmux: PrivateTmux = startPrivateTmux({
    command: "bash --norc --noprofile",
    cwd: repo,
    env,
  });
  cleanups.push(() => tmux.kill());
  let typed = 0;
  const calls = path.join(home, "person");
  mkdirSync(calls);
  /** The person types `command` into their shell. */
  const person = async (command: string): Promise<Done> => {
    const n = typed++;
    const out = q(path.join(calls, `${n}.out`));
    const tmp = q(path.join(calls, `${n}.tmp`));
    const rc = q(path.join(calls, `${n}.rc`));
    tmux.tmux(
      "send-keys",
      "-t",
      "main",
      "-l",
      `{ ${command}; } > ${out} 2>&1; echo $? > ${tmp}; mv ${tmp} ${rc}`,
    );
    tmux.tmux("send-keys", "-t", "main", "Enter");
    return answer(calls, n);
  };
  /** Start `engine` from the person's shell; its tool calls, one at a time. */
  const engine = async (name: string, mode: "plain" | "sandbox", variables: string) => {
    const dir = path.join(home, name);
    mkdirSync(dir);
    await execute("mkfifo", [path.join(dir, "requests")]);
    const started = await person(
      `${variables} bash -c 'exec -a ${name} bash "$0" "$1" ${mode}' ${q(TOOLS)} ${q(dir)} & echo $! > ${q(path.join(dir, "pid"))}`,
    );
    expect(started.code, started.out).toBe(0);
    const pid = Number(readFileSync(path.join(dir, "pid"), "utf8"));
    cleanups.push(() => {
      try {
        process.kill(pid);
      } catch {
        // already ended
      }
    });
    await eventually(
      () => existsSync(path.join(dir, "ready")),
      (ready) => ready,
      `${name} to start`,
    );
    let calls = 0;
    let queue: Promise<unknown> = Promise.resolve();
    return (command: string): Promise<Done> => {
      const n = calls++;
      const done = queue.then(async () => {
        await appendFile(path.join(dir, "requests"), `${command}\n`);
        return answer(dir, n);
      });
      queue = done.catch(() => {});
      return done;
    };
  };
  const run: Record<Who, (command: string) => Promise<Done>> = {
    person,
    pi: await engine("pi", "plain", `PI_SESSION_ID=${SESSION}`),
    claude: await engine("claude", "plain", ""),
    codex: await engine("codex", "sandbox", `CODEX_THREAD_ID=${THREAD}`),
  };
  return { repo, sh, run };
}

/** One door's row of the table: who commits → the member the hook resolved, and the verdicts. */
async function doorRows(setup: (repo: Setup) => Promise<unknown>) {
  const { repo, sh, run } = await team(setup);
  const rows: Record<string, string> = {};
  // Codex's sandboxed shell acts as its thread's member, and never joins one: before the thread
  // joined, its lease is refused with the way to join.
  const early = await run.codex(`muster lease ${FILES.codex}`);
  rows["codex leasing before its thread joined"] =
    early.code === 1 && early.out.includes("let codex join through muster's team tools first")
      ? "refused: join through the team tools first"
      : `${early.code} ${early.out}`;
  // Codex joins through its MCP server (its own child, outside the sandbox), as `codex-<thread>`.
  const joined = await run.codex(`mcp:muster join coder --id codex-${THREAD}`);
  expect(joined.code, joined.out).toBe(0);
  const leased = await Promise.all([
    run.person(`muster lease ${FILES.person}`),
    run.pi(`muster lease ${FILES.pi}`),
    run.claude(`muster lease ${FILES.claude}`),
    run.codex(`muster lease ${FILES.codex}`),
  ]);
  for (const lease of leased) expect(lease.code, lease.out).toBe(0);
  const list = JSON.parse(await sh("muster lease --list --json")).leases as {
    pattern: string;
    holder: string;
    holderId: string;
  }[];
  const holder = (who: Who) => list.find((lease) => lease.pattern === FILES[who])!;
  const who = path.join(repo, ".git", "who.json");
  for (const name of WHO) {
    // As agents do: a script of several commands, the shell outliving git.
    const own = await run[name](
      `echo ${name} >> ${FILES[name]} && git add ${FILES[name]} && git commit -q -m ${name} && git log -1 --format=%h`,
    );
    const resolved = existsSync(who) ? (JSON.parse(readFileSync(who, "utf8")).id as string) : "";
    rmSync(who, { force: true });
    const other = name === "person" ? "pi" : "person";
    const theirs = await run[name](
      `echo ${name} >> ${FILES[other]} && git add ${FILES[other]} && git commit -q -m ${name}`,
    );
    await sh(`git reset -q && git checkout -- ${FILES[other]}`);
    const refused = theirs.code !== 0 && theirs.out.includes(`held by ${holder(other).holder}`);
    rows[name] = [
      resolved === holder(name).holderId ? "its own member" : `another: ${resolved || "none"}`,
      own.code === 0 ? "own commit passes" : `own commit refused: ${own.out.trim()}`,
      refused ? `${other}'s refused, naming ${other}` : `${other}'s: ${theirs.code} ${theirs.out}`,
    ].join("; ");
  }
  // A check that cannot decide refuses: Codex's sandbox naming no thread commits as nobody, and
  // its own leased file is refused with the reason.
  const unnamed = await run.codex(
    `unset CODEX_THREAD_ID; echo x >> ${FILES.codex} && git add ${FILES.codex} && git commit -q -m x`,
  );
  await sh(`git reset -q && git checkout -- ${FILES.codex}`);
  rows["codex naming no thread"] =
    unnamed.code !== 0 &&
    unnamed.out.includes("muster cannot tell who commits (this command runs in codex's sandbox")
      ? "refused: muster cannot tell who commits"
      : `${unnamed.code} ${unnamed.out}`;
  const ids = Object.fromEntries(WHO.map((name) => [name, holder(name).holderId]));
  return { rows, ids };
}

describe.concurrent("door × who commits → member id", () => {
  it.each(DOORS.filter(([, , long]) => LONG_TESTS || long === undefined))(
    "%s",
    async (_door, setup) => {
      const { rows, ids } = await doorRows(setup);
      expect(rows).toEqual({
        person: "its own member; own commit passes; pi's refused, naming pi",
        pi: "its own member; own commit passes; person's refused, naming person",
        claude: "its own member; own commit passes; person's refused, naming person",
        codex: "its own member; own commit passes; person's refused, naming person",
        "codex naming no thread": "refused: muster cannot tell who commits",
        "codex leasing before its thread joined": "refused: join through the team tools first",
      });
      // The ids the leases were taken under: each engine's own, and the shell's process.
      expect(ids).toEqual({
        person: expect.stringMatching(/^shell-\d+-\d+$/),
        pi: SESSION,
        claude: expect.stringMatching(/^claude-\d+-\d+$/),
        codex: `codex-${THREAD}`,
      });
    },
    60_000,
  );
});
