// `muster install git-hook` (`muster guard --install` / `--uninstall`): the hooks that run
// `muster guard` before a change reaches a commit — pre-commit (`git commit`, and the commit that
// ends a conflicted merge, cherry-pick or revert), pre-merge-commit (a merge that commits by
// itself) and pre-applypatch (`git am`) — in the folder git runs hooks from (core.hooksPath:
// husky's `.husky/_`, else `.git/hooks`). A hook already there is kept as `<hook>.muster-chained`
// and run after the guard as itself: a shell script is sourced with `$0` still the hook's own
// path (husky's scripts find their folder and name from `$0`), anything else is executed. Install
// is all or nothing (muster's hooks are written to temp files first; the user's hook is only
// linked to its new name, which needs no room on the disk); uninstall puts the user's hook back by
// a rename, so it works on a full disk too, and also repairs a hook a failed install left empty.
import { randomBytes } from "node:crypto";
import { link, lstat, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { gitHooksFolder } from "@muster/node";
import { type Context, Refusal } from "./_context.js";

export const MARKER = "# muster guard hook: written by `muster guard --install`";
/** The hooks git runs before a change becomes a commit, each of which runs the guard. */
export const GUARDED_HOOKS = ["pre-commit", "pre-merge-commit", "pre-applypatch"] as const;
export const chainedName = (hook: string) => `${hook}.muster-chained`;

/** Quote a path for sh: single quotes, with any single quote closed, escaped and reopened. */
const shQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The shells whose scripts the chain sources (so `$0` stays the hook's own path). */
const SHELLS = "sh|bash|dash|zsh|ksh|mksh|ash|busybox";

export function hookText(hook: string, node: string, script: string): string {
  return [
    "#!/bin/sh",
    MARKER,
    `# ${hook}: refuses a change touching paths another live member of the team holds exclusively.`,
    "# Warn only: MUSTER_GUARD=warn git …   Skip every hook: git commit --no-verify",
    `if [ -x ${shQuote(node)} ] && [ -f ${shQuote(script)} ]; then`,
    `  ${shQuote(node)} ${shQuote(script)} guard || exit $?`,
    "elif command -v muster >/dev/null 2>&1; then",
    "  muster guard || exit $?",
    "else",
    '  echo "muster guard: muster is not installed here; leases were not checked" >&2',
    "fi",
    `__muster_chained="$(dirname "$0")/${chainedName(hook)}"`,
    '[ -x "$__muster_chained" ] || exit 0',
    "# Your hook, as itself: a shell script runs in its own shell with $0 this hook's path.",
    '__muster_line=""',
    'read -r __muster_line < "$__muster_chained" || true',
    'case "$__muster_line" in',
    `  '#!'*) __muster_interpreter="\${__muster_line#??}" ;;`,
    "  *) __muster_interpreter=sh ;;",
    "esac",
    '__muster_words() { __muster_program="$1"; __muster_flag="$2"; __muster_more="$3"; }',
    "set -f",
    "__muster_words $__muster_interpreter",
    "set +f",
    'if [ "$(basename "$__muster_program")" = env ]; then',
    '  __muster_program="$__muster_flag"; __muster_flag="$__muster_more"',
    "fi",
    'case "$(basename "$__muster_program")" in',
    `  ${SHELLS})`,
    "    export __muster_chained",
    `    exec "$__muster_program" $__muster_flag -c '. "$__muster_chained"' "$0" "$@" ;;`,
    "esac",
    'exec "$__muster_chained" "$@"',
    "",
  ].join("\n");
}

type HookState = {
  hook: string;
  file: string;
  chained: string;
  current: string | undefined;
  chainedText: string | undefined;
};

/** A hook's bytes, one character each (latin1): two hooks compare equal only byte for byte. */
const readText = (file: string) => readFile(file, "latin1").catch(() => undefined);
const present = (file: string) =>
  lstat(file).then(
    () => true,
    () => false,
  );

/** Muster's hook, or what a failed write of one left (empty, or a prefix of it). */
const isOurs = (text: string | undefined, ours: string) =>
  text !== undefined &&
  (text.includes(MARKER) || Buffer.from(ours).toString("latin1").startsWith(text));

async function stageHook(file: string, text: string): Promise<string> {
  const temp = `${file}.muster-${randomBytes(6).toString("hex")}`;
  const handle = await open(temp, "wx", 0o755);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(temp, { force: true });
    throw error;
  } finally {
    await handle.close().catch(() => {});
  }
  return temp;
}

async function states(folder: string): Promise<HookState[]> {
  return Promise.all(
    GUARDED_HOOKS.map(async (hook) => {
      const file = path.join(folder, hook);
      const chained = path.join(folder, chainedName(hook));
      return {
        hook,
        file,
        chained,
        current: await readText(file),
        chainedText: await readText(chained),
      };
    }),
  );
}

/** Install every guarded hook, or none: a refusal or a write that fails changes nothing. */
async function install(folder: string, node: string, script: string): Promise<string[]> {
  await mkdir(folder, { recursive: true });
  const all = await states(folder);
  const said: string[] = [];
  for (const state of all) {
    const ours = isOurs(state.current, hookText(state.hook, node, script));
    const exists = ours || (await present(state.file));
    if (!ours && exists && (await present(state.chained)) && state.chainedText !== state.current)
      throw new Refusal(
        "hook-chained",
        `${state.chained} already exists beside your ${state.hook} hook: move one of them away, then install again`,
      );
  }
  const staged: { state: HookState; temp: string }[] = [];
  try {
    for (const state of all)
      staged.push({ state, temp: await stageHook(state.file, hookText(state.hook, node, script)) });
  } catch (error) {
    await Promise.all(staged.map((entry) => rm(entry.temp, { force: true })));
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Refusal(
      "write-failed",
      `could not write the git hooks in ${folder} (${code}); nothing was changed: ${code === "ENOSPC" ? "free some disk space" : "fix that"}, then run it again`,
    );
  }
  for (const { state, temp } of staged) {
    const ours = isOurs(state.current, hookText(state.hook, node, script));
    const user = !ours && (await present(state.file));
    // The user's hook keeps its bytes (and, a symlink, its link) under the chained name.
    if (user && !(await present(state.chained))) await link(state.file, state.chained);
    await rename(temp, state.file);
    said.push(
      ours
        ? `${state.hook} (refreshed)`
        : user || (await present(state.chained))
          ? `${state.hook} (your hook runs after it, as ${chainedName(state.hook)})`
          : state.hook,
    );
  }
  return said;
}

/** Put each user's hook back (or remove muster's); a hook that is not muster's is left alone. */
async function uninstall(folder: string, node: string, script: string): Promise<string[]> {
  const said: string[] = [];
  for (const state of await states(folder)) {
    const ours = isOurs(state.current, hookText(state.hook, node, script));
    const chained = await present(state.chained);
    if (ours && chained) {
      await rename(state.chained, state.file);
      said.push(`${state.hook} (your hook is back)`);
    } else if (ours) {
      await rm(state.file, { force: true });
      said.push(state.hook);
    } else if (chained && state.chainedText === state.current) {
      await rm(state.chained);
      said.push(`${chainedName(state.hook)} (a copy of your ${state.hook})`);
    } else if (chained)
      said.push(
        `left ${chainedName(state.hook)}: your ${state.hook} was replaced since (by a hook manager?); keep the one you want`,
      );
  }
  return said;
}

export async function installGitHook(context: Context, options: { uninstall: boolean }) {
  const folder = await gitHooksFolder(context.io.cwd);
  if (!folder)
    throw new Refusal("no-git", "not in a git repository: run this inside the repository");
  const node = process.execPath;
  const script = path.resolve(process.argv[1] ?? "muster");
  const hooks = options.uninstall
    ? await uninstall(folder, node, script)
    : await install(folder, node, script);
  const done = options.uninstall
    ? hooks.length === 0
      ? `no muster hook in ${folder}`
      : `removed the muster guard from ${folder}: ${hooks.join(", ")}`
    : `installed the muster guard in ${folder}: ${hooks.join(", ")}`;
  const unguarded =
    "git runs no hook before a cherry-pick, a rebase or a revert commits (nor a fast-forward merge): those are not checked";
  if (context.json)
    return context.emit({
      ok: true,
      folder,
      hook: path.join(folder, "pre-commit"),
      hooks,
      message: done,
      ...(options.uninstall ? {} : { unguarded }),
    });
  context.out(`${done.charAt(0).toUpperCase()}${done.slice(1)}.`);
  if (!options.uninstall)
    context.out(`  ${unguarded.charAt(0).toUpperCase()}${unguarded.slice(1)}.`);
}
