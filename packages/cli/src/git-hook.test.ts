// `muster install git-hook` with real git and the hook shapes users have: husky 9.1.7's real
// scripts (installed from npm by husky itself), lefthook 2.2.1's and simple-git-hooks 2.14.0's real
// installs, a dispatcher that reads its own name, a shell script with `-e` in its shebang, another
// interpreter, a custom core.hooksPath, a merge commit (pre-merge-commit), and a full disk (a
// 256 KiB tmpfs in a private mount namespace).
import { execFile } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { tmuxEnv } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const HUSKY = path.resolve(import.meta.dirname, "..", "node_modules", "husky", "bin.js");
const modules = path.resolve(import.meta.dirname, "..", "node_modules");
/** Each hook manager's own install, run for real in the repository, with a check that can fail. */
const MANAGERS: [string, (repo: string) => void, string][] = [
  [
    "lefthook 2.2.1",
    (repo) =>
      writeFileSync(
        path.join(repo, "lefthook.yml"),
        "pre-commit:\n  commands:\n    lint:\n      run: echo lint ran >> ran.log && [ ! -f block ]\n",
      ),
    `"${process.execPath}" "${path.join(modules, "lefthook", "bin", "index.js")}" install`,
  ],
  [
    "simple-git-hooks 2.14.0",
    (repo) =>
      writeFileSync(
        path.join(repo, "package.json"),
        JSON.stringify({
          "simple-git-hooks": { "pre-commit": "echo lint ran >> ran.log && [ ! -f block ]" },
        }),
      ),
    `"${process.execPath}" "${path.join(modules, "simple-git-hooks", "cli.js")}"`,
  ],
];
const execute = promisify(execFile);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository with one commit, its own team folder, and a shell to run things in it. */
async function repository() {
  const repo = mkdtempSync(path.join(tmpdir(), "muster-githook-"));
  dirs.push(repo);
  const env = tmuxEnv({
    HOME: repo,
    MUSTER_TEAM_DIR: path.join(repo, ".git", "muster-team"),
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@t",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@t",
    PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
  });
  const sh = (script: string) =>
    execute("sh", ["-c", script], { cwd: repo, env }).then(
      (done) => ({ code: 0, ...done }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  await sh("git init -q -b main . && git commit -q --allow-empty -m start");
  const muster = (...args: string[]) =>
    sh([process.execPath, MUSTER, ...args].map((word) => `'${word}'`).join(" "));
  const hook = (name: string, text: string) => {
    const file = path.join(repo, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    chmodSync(file, 0o755);
    return file;
  };
  const commit = (name: string) =>
    sh(`echo x >> ${name} && git add ${name} && git commit -qm ${name}`);
  return {
    repo,
    sh,
    muster,
    hook,
    commit,
    log: () => readFileSync(path.join(repo, "ran.log"), "utf8"),
  };
}

it("husky 9's real hooks keep running the user's checks, and uninstall gives husky's file back", async () => {
  const { repo, sh, muster, hook, commit, log } = await repository();
  expect((await sh(`"${process.execPath}" ${HUSKY}`)).code).toBe(0);
  expect((await sh("git config core.hooksPath")).stdout.trim()).toBe(".husky/_");
  const huskys = readFileSync(path.join(repo, ".husky/_/pre-commit"), "utf8");
  hook(".husky/pre-commit", 'echo "lint ran" >> ran.log\n[ ! -f block ]\n');
  const installed = await muster("install", "git-hook");
  expect(installed.stdout).toContain(
    `Installed the muster guard in ${repo}/.husky/_: pre-commit (your hook runs after it, as pre-commit.muster-chained)`,
  );
  expect((await commit("a.txt")).code).toBe(0);
  expect(log()).toBe("lint ran\n");
  // The user's check still decides: when it fails, the commit is refused.
  writeFileSync(path.join(repo, "block"), "");
  expect((await commit("b.txt")).code).not.toBe(0);
  expect(log()).toBe("lint ran\nlint ran\n");
  const doctor = async () =>
    (JSON.parse((await muster("doctor", "--json")).stdout).checks as { name: string }[]).find(
      (check) => check.name === "git hook",
    );
  expect(await doctor()).toMatchObject({
    ok: true,
    detail: `muster's guard runs from ${repo}/.husky/_, then your hook (pre-commit.muster-chained)`,
  });
  // husky's own install writes its hook again: doctor says the guard no longer runs.
  expect((await sh(`"${process.execPath}" ${HUSKY}`)).code).toBe(0);
  expect(await doctor()).toMatchObject({ ok: false, fix: "muster install git-hook" });
  await muster("install", "git-hook");
  await muster("install", "git-hook", "--uninstall");
  expect(readFileSync(path.join(repo, ".husky/_/pre-commit"), "utf8")).toBe(huskys);
  expect(existsSync(path.join(repo, ".husky/_/pre-commit.muster-chained"))).toBe(false);
}, 120_000);

it.each(MANAGERS)(
  "%s's real hook keeps running the user's check, which still decides; uninstall gives its file back",
  async (_name, configure, install) => {
    const { repo, sh, muster, commit, log } = await repository();
    configure(repo);
    expect((await sh(install)).code).toBe(0);
    const theirs = readFileSync(path.join(repo, ".git/hooks/pre-commit"), "utf8");
    expect((await muster("install", "git-hook")).stdout).toContain("your hook runs after it");
    expect((await commit("a.txt")).code).toBe(0);
    expect(log()).toBe("lint ran\n");
    writeFileSync(path.join(repo, "block"), "");
    expect((await commit("b.txt")).code).not.toBe(0);
    expect(log()).toBe("lint ran\nlint ran\n");
    await muster("install", "git-hook", "--uninstall");
    expect(readFileSync(path.join(repo, ".git/hooks/pre-commit"), "utf8")).toBe(theirs);
  },
  60_000,
);

it("a dispatcher hook runs under its own name, through its relative symlink; a -e shebang holds", async () => {
  const { repo, muster, hook, commit, log } = await repository();
  hook(
    ".git/hooks/dispatch.sh",
    '#!/bin/sh -e\necho "$(basename "$0") $(dirname "$0")" >> ran.log\nfalse\necho "after false" >> ran.log\n',
  );
  symlinkSync("dispatch.sh", path.join(repo, ".git/hooks/pre-commit"));
  await muster("install", "git-hook");
  expect(lstatSync(path.join(repo, ".git/hooks/pre-commit.muster-chained")).isSymbolicLink()).toBe(
    true,
  );
  // `false` under -e stops the user's hook: the commit is refused, as without muster.
  expect((await commit("a.txt")).code).not.toBe(0);
  // As git names it, so as it reads without muster.
  expect(log()).toBe("pre-commit .git/hooks\n");
  await muster("install", "git-hook", "--uninstall");
  expect(lstatSync(path.join(repo, ".git/hooks/pre-commit")).isSymbolicLink()).toBe(true);
});

it("a hook in another language is executed with git's arguments; a custom core.hooksPath is used", async () => {
  const { repo, sh, muster, hook, log } = await repository();
  await sh("git config core.hooksPath hooks");
  hook("hooks/commit-msg", "#!/bin/sh\nexit 0\n");
  hook(
    "hooks/pre-merge-commit",
    `#!${process.execPath}\nrequire("node:fs").appendFileSync("ran.log", "merge hook " + process.argv.length + "\\n");\n`,
  );
  await muster("install", "git-hook");
  expect(readFileSync(path.join(repo, "hooks/pre-merge-commit"), "utf8")).toContain(
    "muster guard hook",
  );
  expect(readFileSync(path.join(repo, "hooks/commit-msg"), "utf8")).toBe("#!/bin/sh\nexit 0\n");
  // A merge that commits by itself runs pre-merge-commit: the guard, then the user's hook.
  await sh(
    "git checkout -q -b side && echo s > s.txt && git add s.txt && git commit -q --no-verify -m s && git checkout -q main && echo m > m.txt && git add m.txt && git commit -q --no-verify -m m",
  );
  expect((await sh("git merge -q --no-edit side")).code).toBe(0);
  expect(log()).toBe("merge hook 2\n");
});

it("uninstall repairs an empty hook a failed install left, putting the user's back", async () => {
  const { repo, muster, hook } = await repository();
  const user = "#!/bin/sh\necho mine\n";
  hook(".git/hooks/pre-commit.muster-chained", user);
  hook(".git/hooks/pre-commit", "");
  const removed = await muster("install", "git-hook", "--uninstall");
  expect(removed.stdout).toContain("pre-commit (your hook is back)");
  expect(readFileSync(path.join(repo, ".git/hooks/pre-commit"), "utf8")).toBe(user);
});

it("a replaced hook that differs from the user's only in non-UTF-8 bytes is no copy: both are kept", async () => {
  const { repo, muster } = await repository();
  const file = path.join(repo, ".git/hooks/pre-commit");
  const mine = Buffer.from("#!/bin/sh\n# caf\xe9\nexit 0\n", "latin1");
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, mine, { mode: 0o755 });
  expect((await muster("install", "git-hook")).code).toBe(0);
  // A hook manager writes its own hook over muster's: one byte apart, both invalid UTF-8.
  const theirs = Buffer.from("#!/bin/sh\n# caf\xe8\nexit 0\n", "latin1");
  writeFileSync(file, theirs, { mode: 0o755 });
  const removed = await muster("install", "git-hook", "--uninstall");
  expect(removed.stdout).toContain("left pre-commit.muster-chained");
  expect(readFileSync(`${file}.muster-chained`).equals(mine)).toBe(true);
  expect(readFileSync(file).equals(theirs)).toBe(true);
});

it("on a full disk install changes nothing, and uninstall still gives the user's hook back", async () => {
  const { repo } = await repository();
  const user = "#!/bin/sh\necho mine >> ran.log\n";
  const script = [
    `mount -t tmpfs -o size=256k muster-full "$REPO/.git/hooks"`,
    `printf '%s' '${user}' > "$REPO/.git/hooks/pre-commit" && chmod +x "$REPO/.git/hooks/pre-commit"`,
    `dd if=/dev/zero of="$REPO/.git/hooks/filler" bs=4096 2>/dev/null; sync`,
    `out=$("$NODE" "$MUSTER" install git-hook 2>&1); echo "full=$?"; echo "$out"`,
    `ls -A "$REPO/.git/hooks" | tr '\\n' ' '; echo`,
    `cat "$REPO/.git/hooks/pre-commit"`,
    `rm "$REPO/.git/hooks/filler"`,
    `"$NODE" "$MUSTER" install git-hook >/dev/null; echo "roomy=$?"`,
    `dd if=/dev/zero of="$REPO/.git/hooks/filler" bs=4096 2>/dev/null; sync`,
    `"$NODE" "$MUSTER" install git-hook --uninstall >/dev/null; echo "uninstalled=$?"`,
    `ls -A "$REPO/.git/hooks" | tr '\\n' ' '; echo`,
    `cat "$REPO/.git/hooks/pre-commit"`,
  ].join("\n");
  const { stdout } = await execute("unshare", ["-rm", "sh", "-c", script], {
    cwd: repo,
    env: tmuxEnv({
      HOME: repo,
      REPO: repo,
      NODE: process.execPath,
      MUSTER,
      MUSTER_TEAM_DIR: path.join(repo, "team"),
    }),
  });
  const lines = stdout.split("\n");
  expect(lines[0]).toBe("full=1");
  expect(lines[1]).toMatch(
    /^muster: could not write the git hooks in .* \(ENOSPC\); nothing was changed: free some disk space, then run it again$/,
  );
  expect(lines[2]).toBe("filler pre-commit ");
  expect(lines.slice(3, 5).join("\n")).toBe(user.trimEnd());
  expect(lines.slice(5, 7)).toEqual(["roomy=0", "uninstalled=0"]);
  expect(lines[7]).toBe("filler pre-commit ");
  expect(lines.slice(8, 10).join("\n")).toBe(user.trimEnd());
  expect(
    readdirSync(path.join(repo, ".git", "hooks")).filter((name) => name.includes("muster")),
  ).toEqual([]);
});
