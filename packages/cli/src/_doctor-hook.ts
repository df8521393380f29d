// `muster doctor`'s check of the git hooks `muster install git-hook` writes: installed, running a
// muster that is still there, every guarded hook present, and the user's chained hook still run.
import { lstat, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { gitHooksFolder } from "@muster/node";
import type { Context } from "./_context.js";
import { chainedName, GUARDED_HOOKS, MARKER } from "./_git-hook.js";

type Check = { name: string; ok: boolean; detail: string; fix?: string; warn?: boolean };

const readText = (file: string) => readFile(file, "utf8").catch(() => undefined);
const facts = (file: string) => stat(file).catch(() => undefined);
const present = (file: string) =>
  lstat(file).then(
    () => true,
    () => false,
  );

/** The Node and muster script a hook of muster's runs (undefined: not in the form muster writes). */
function programOf(text: string): [string, string] | undefined {
  const match = /^if \[ -x '([^']+)' \] && \[ -f '([^']+)' \]; then$/m.exec(text);
  return match ? [match[1]!, match[2]!] : undefined;
}

export async function hookCheck(context: Context): Promise<Check> {
  const name = "git hook";
  const fix = "muster install git-hook";
  const folder = await gitHooksFolder(context.io.cwd);
  if (!folder) return { name, ok: true, detail: "not in a git repository" };
  const hook = path.join(folder, "pre-commit");
  const text = await readText(hook);
  const chained = path.join(folder, chainedName("pre-commit"));
  if (!text?.includes(MARKER)) {
    if (await present(chained))
      return {
        name,
        ok: false,
        detail: `${hook} is no longer muster's (a hook manager's install replaced it?): leases are not checked; your older hook waits as ${chained}`,
        fix,
      };
    return {
      name,
      ok: true,
      warn: true,
      detail: `${hook} does not run muster's guard: leases are advisory`,
      fix,
    };
  }
  const program = programOf(text);
  const there = program ? (await facts(program[0])) && (await facts(program[1])) : undefined;
  if (program && !there)
    return {
      name,
      ok: false,
      detail: `${hook} runs ${program[1]}, which is not there (muster moved or removed); it falls back to a muster on PATH`,
      fix,
    };
  const missing = [];
  for (const other of GUARDED_HOOKS)
    if (!(await readText(path.join(folder, other)))?.includes(MARKER)) missing.push(other);
  const user = await facts(chained);
  if ((await present(chained)) && (!user || (user.mode & 0o111) === 0))
    return {
      name,
      ok: false,
      detail: `${chained} (your own hook) is ${user ? "not executable" : "a link to nothing"}: it does not run`,
      fix: user ? `chmod +x ${chained}` : `fix or remove ${chained}`,
    };
  return {
    name,
    ok: true,
    ...(missing.length > 0 ? { warn: true, fix } : {}),
    detail: `muster's guard runs from ${folder}${user ? `, then your hook (${chainedName("pre-commit")})` : ""}${missing.length > 0 ? `; ${missing.join(", ")} not guarded` : ""}`,
  };
}
