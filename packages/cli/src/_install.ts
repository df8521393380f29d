// `muster install codex|claude [--project] [--uninstall]`: write (or remove) muster's entries in an
// engine's configuration, keeping the user's own content. The edits themselves are pure functions
// in @muster/mcp/engines (imported only here); this file finds the files, keeps Claude Code's
// original bytes for the uninstall, and writes each file whole (temp name, then rename).
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { stateRoot } from "@muster/node";
import { type Context, Refusal } from "./_context.js";

export type InstallOptions = {
  engine: string;
  project: boolean;
  uninstall: boolean;
  wake: boolean;
};

type Edit =
  | { ok: true; text: string | undefined; changed: boolean; notes?: string[] }
  | { ok: false; reason: string; error: string };

async function readIfPresent(file: string): Promise<string | undefined> {
  return readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
}

/** Write a file whole, keeping its mode (0600 for a new one); undefined removes it. */
async function writeWhole(file: string, text: string | undefined) {
  if (text === undefined) return rm(file, { force: true });
  const mode = await stat(file).then(
    (facts) => facts.mode & 0o777,
    () => 0o600,
  );
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.muster-${randomBytes(6).toString("hex")}`;
  await writeFile(temp, text, { mode, flag: "wx" });
  await rename(temp, file);
}

const musterScript = () => path.join(path.dirname(fileURLToPath(import.meta.url)), "muster.js");

/** What Codex's notify runs after every turn: this Node and this CLI, by absolute path. */
const codexNotifyCommand = () => [process.execPath, musterScript(), "hook", "codex", "notify"];

/** The muster executable an engine should start: this Node and this CLI, by absolute path. */
function serverCommand(wake: boolean) {
  const script = musterScript();
  return {
    command: process.execPath,
    args: [script, "mcp"],
    ...(wake ? { env: { MUSTER_WAKE: "1" } } : {}),
  };
}

async function projectRoot(context: Context) {
  const team = await context.team();
  const inside = team.worktrees
    .filter((root) => context.io.cwd === root || context.io.cwd.startsWith(`${root}/`))
    .sort((left, right) => right.length - left.length);
  return inside[0] ?? context.io.cwd;
}

const home = (env: NodeJS.ProcessEnv) =>
  env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir();

/** Where Claude Code's original bytes wait for the uninstall: muster's state, by the file's path. */
const backupOf = (env: NodeJS.ProcessEnv, file: string) =>
  path.join(
    stateRoot(env),
    "installs",
    `${createHash("sha256").update(file).digest("hex").slice(0, 16)}.json`,
  );

async function editFile(file: string, edit: (text: string | undefined) => Edit, backup?: string) {
  const original = await readIfPresent(file);
  const result = edit(original);
  if (!result.ok) throw new Refusal(result.reason, `${file}: ${result.error}`);
  if (backup && (await readIfPresent(backup)) === undefined && result.changed)
    await writeWhole(backup, `${JSON.stringify({ path: file, original: original ?? null })}\n`);
  if (result.changed) await writeWhole(file, result.text);
  return { path: file, changed: result.changed, notes: result.changed ? (result.notes ?? []) : [] };
}

async function restoreFile(
  file: string,
  edit: (text: string | undefined) => Edit,
  backup: string,
  restore: (
    uninstalled: string | undefined,
    original: string | undefined | null,
  ) => string | undefined,
) {
  const current = await readIfPresent(file);
  const result = edit(current);
  if (!result.ok) throw new Refusal(result.reason, `${file}: ${result.error}`);
  const saved = await readIfPresent(backup);
  let original: string | undefined | null = null;
  if (saved !== undefined) {
    const record = JSON.parse(saved) as { path?: string; original?: string | null };
    if (record.path === file) original = record.original ?? undefined;
  }
  const text = restore(result.text, original);
  if (text !== current) await writeWhole(file, text);
  await rm(backup, { force: true });
  return { path: file, changed: text !== current, notes: [] };
}

export async function installCommand(context: Context, options: InstallOptions) {
  const engines = await import("@muster/mcp/engines");
  const env = context.io.env;
  const server = serverCommand(options.wake);
  const root = options.project ? await projectRoot(context) : undefined;
  const files: { path: string; changed: boolean; notes: string[] }[] = [];
  if (options.engine === "codex") {
    const folder = root
      ? path.join(root, ".codex")
      : env.CODEX_HOME || path.join(home(env), ".codex");
    const file = path.join(folder, "config.toml");
    files.push(
      await editFile(file, (text) =>
        options.uninstall
          ? engines.uninstallCodex(text)
          : engines.installCodex(text, server, codexNotifyCommand()),
      ),
    );
  } else {
    const configDir = env.CLAUDE_CONFIG_DIR || path.join(home(env), ".claude");
    const settings = root
      ? path.join(root, ".claude", "settings.json")
      : path.join(configDir, "settings.json");
    const mcp = root
      ? path.join(root, ".mcp.json")
      : env.CLAUDE_CONFIG_DIR
        ? path.join(env.CLAUDE_CONFIG_DIR, ".claude.json")
        : path.join(home(env), ".claude.json");
    for (const [file, install, uninstall] of [
      [
        mcp,
        (text: string | undefined) => engines.installClaudeMcp(text, server),
        engines.uninstallClaudeMcp,
      ],
      [
        settings,
        (text: string | undefined) => engines.installClaudeHooks(text, server),
        engines.uninstallClaudeHooks,
      ],
    ] as const) {
      files.push(
        options.uninstall
          ? await restoreFile(file, uninstall, backupOf(env, file), engines.restoreClaude)
          : await editFile(file, install, backupOf(env, file)),
      );
    }
  }
  const notes = files.flatMap((file) => file.notes);
  if (context.json)
    return context.emit({
      ok: true,
      engine: options.engine,
      uninstall: options.uninstall,
      files,
      notes,
    });
  const name = options.engine === "codex" ? "Codex" : "Claude Code";
  for (const file of files) {
    const verb = options.uninstall ? "removed muster from" : "set up muster in";
    context.out(
      file.changed
        ? `${name}: ${verb} ${file.path}`
        : `${name}: ${file.path} is already as it should be`,
    );
  }
  for (const note of notes) context.out(`  ${note}`);
  if (!options.uninstall && options.engine === "claude" && !root)
    context.out(
      "  Project .mcp.json servers need approval; this installed muster for your user instead.",
    );
}
