// `muster install tmux [--uninstall] [--dry-run]`: muster's status line in the user's own
// status-right and prefix+g bound to `muster go`, as one marked block at the end of the tmux config
// tmux loads (core's addTmuxBlock / removeTmuxBlock decide the text); written through a symlink and
// all or nothing (`_install-files.ts`). The file is edited as bytes (whatever its encoding: the block
// is ASCII); the uninstall removes only that block, every other byte kept.
import { lstatSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { addTmuxBlock, GO_KEY, printable, removeTmuxBlock, userGoKey } from "@muster/core";
import { listKeyArgs } from "@muster/tmux";
import { type Context, Refusal } from "./_context.js";
import { diffsOf } from "./_install.js";
import { commitPlans, readPlan, shownText } from "./_install-files.js";

export type TmuxOptions = { uninstall: boolean; dryRun: boolean };

const present = (file: string) => {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
};

/** The tmux config in use: tmux 3.2+ reads ~/.tmux.conf, then $XDG_CONFIG_HOME/tmux/tmux.conf. */
export function tmuxConfFile(env: NodeJS.ProcessEnv) {
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir();
  const xdg =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(home, ".config");
  const candidates = [
    path.join(home, ".tmux.conf"),
    path.join(xdg, "tmux", "tmux.conf"),
    path.join(home, ".config", "tmux", "tmux.conf"),
  ];
  return candidates.find(present) ?? (candidates[0] as string);
}

/** This Node and this CLI by absolute path: tmux's #() and run-shell do not see the shell's PATH. */
const musterCommand = () => [
  process.execPath,
  path.join(path.dirname(fileURLToPath(import.meta.url)), "muster.js"),
];

/**
 * The user's own binding of prefix+g, if any: in their file, or (inside tmux, or with -L/-S) in
 * the running server. Outside tmux with no server named, only the file is read: muster asks no
 * server the user did not point it at.
 */
async function usersGoKey(context: Context, text: string | undefined) {
  if (!context.target) return userGoKey(text);
  const listed = await context.run(listKeyArgs(context.target, "prefix", GO_KEY));
  return userGoKey(text, listed.status === 0 ? listed.stdout : "");
}

export async function installTmuxCommand(context: Context, options: TmuxOptions) {
  const file = tmuxConfFile(context.io.env);
  const read = await readPlan(file, { bytes: true });
  // The user's binding is looked for (and quoted) in the file as text; the edit is of its bytes.
  const kept = options.uninstall
    ? undefined
    : await usersGoKey(context, shownText(read, read.before));
  const edit = options.uninstall
    ? removeTmuxBlock(read.before)
    : addTmuxBlock(read.before, musterCommand(), kept === undefined);
  if (!edit.ok) throw new Refusal(edit.reason, edit.error);
  const plan = { ...read, after: edit.text };
  const [diff = ""] = options.dryRun ? await diffsOf([plan]) : [];
  if (!options.dryRun) await commitPlans([plan]);
  const verb = options.uninstall ? "remove" : "add";
  if (context.json)
    return context.emit({
      ok: true,
      file,
      changed: edit.changed,
      dryRun: options.dryRun,
      action: verb,
      ...(options.uninstall ? {} : { key: { bound: kept === undefined, kept: kept ?? null } }),
      ...(options.dryRun ? { diff } : {}),
    });
  const done = options.dryRun ? `would ${verb}` : options.uninstall ? "removed" : "added";
  const what =
    kept === undefined ? "muster's status line and prefix+g (muster go)" : "muster's status line";
  context.out(
    edit.changed
      ? `tmux: ${done} ${what} ${options.uninstall ? "from" : "in"} ${file}`
      : `tmux: ${file} ${options.uninstall ? "has no muster block" : "already has muster's block"}; nothing to change`,
  );
  if (kept !== undefined)
    context.out(
      `prefix+${GO_KEY} is yours (${printable(kept)}): kept; to reach muster go, bind another key: bind-key G run-shell '${musterCommand().join(" ")} go'`,
    );
  if (diff) context.out(diff.trimEnd());
  if (options.dryRun) return context.out("Nothing was written (--dry-run).");
  if (edit.changed)
    context.out(
      options.uninstall
        ? "A running tmux server keeps muster's line and key until it restarts."
        : `Load it in a running tmux now: tmux source-file ${file}`,
    );
}
