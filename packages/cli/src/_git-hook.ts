// `muster guard --install` / `--uninstall`: the pre-commit hook that runs `muster guard`. A hook
// already there is kept, renamed beside ours and run after the guard; uninstalling puts it back
// byte for byte. Only a hook muster wrote (its marker line) is ever replaced or removed.
import { chmod, lstat, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { gitHooksFolder } from "@muster/node";
import { type Context, Refusal } from "./_context.js";

const MARKER = "# muster guard hook: written by `muster guard --install`";
const CHAINED = "pre-commit.muster-chained";

/** Quote a path for sh: single quotes, with any single quote closed, escaped and reopened. */
const shQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

function hookText(node: string, script: string): string {
  return [
    "#!/bin/sh",
    MARKER,
    "# Refuses a commit touching paths another live member of the team holds exclusively.",
    "# Warn only: MUSTER_GUARD=warn git commit …   Skip every hook: git commit --no-verify",
    `if [ -x ${shQuote(node)} ] && [ -f ${shQuote(script)} ]; then`,
    `  ${shQuote(node)} ${shQuote(script)} guard || exit $?`,
    "elif command -v muster >/dev/null 2>&1; then",
    "  muster guard || exit $?",
    "else",
    '  echo "muster guard: muster is not installed here; leases were not checked" >&2',
    "fi",
    `chained="$(dirname "$0")/${CHAINED}"`,
    'if [ -x "$chained" ]; then exec "$chained" "$@"; fi',
    "",
  ].join("\n");
}

async function present(file: string) {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

export async function installGitHook(context: Context, options: { uninstall: boolean }) {
  const folder = await gitHooksFolder(context.io.cwd);
  if (!folder)
    throw new Refusal("no-git", "not in a git repository: run this inside the repository");
  const hook = path.join(folder, "pre-commit");
  const chained = path.join(folder, CHAINED);
  const current = await readFile(hook, "utf8").catch(() => undefined);
  const ours = current?.includes(MARKER) ?? false;
  let done: string;
  if (options.uninstall) {
    if (!ours) {
      done =
        current === undefined
          ? "no pre-commit hook to remove"
          : "the pre-commit hook is not muster's; left alone";
    } else {
      await rm(hook);
      if (await present(chained)) await rename(chained, hook);
      done = `removed the muster guard from ${hook}`;
    }
  } else if (ours) {
    await writeFile(hook, hookText(process.execPath, path.resolve(process.argv[1] ?? "muster")));
    done = `the muster guard is already installed in ${hook} (refreshed)`;
  } else {
    if (current !== undefined) {
      if (await present(chained))
        throw new Refusal(
          "hook-chained",
          `${chained} already exists: move it away, then install again`,
        );
      await rename(hook, chained);
    }
    await writeFile(hook, hookText(process.execPath, path.resolve(process.argv[1] ?? "muster")), {
      mode: 0o755,
    });
    await chmod(hook, 0o755);
    done = `installed the muster guard in ${hook}${current === undefined ? "" : ` (your hook runs after it, as ${CHAINED})`}`;
  }
  if (context.json) return context.emit({ ok: true, hook, message: done });
  context.out(`${done.charAt(0).toUpperCase()}${done.slice(1)}.`);
}
