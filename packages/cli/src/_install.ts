// `muster install codex|claude [--project] [--uninstall] [--wake] [--dry-run]`: write (or remove)
// muster's entries in an engine's configuration, keeping the user's own content. The edits
// themselves are pure functions in @muster/mcp/engines (imported only here); this file finds the
// files, keeps each file's bytes from before muster's first install (muster's state, `installs/`)
// so the uninstall knows what the user had, and writes every file of one install together
// (`_install-files.ts`). A project install names no path of this machine: it runs `muster` from
// PATH, so the files work for every teammate who commits and clones them.
import { createHash } from "node:crypto";
import { access, constants } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { stateRoot } from "@muster/node";
import { type Context, Refusal } from "./_context.js";
import { commitPlans, type FilePlan, readPlan, shownText } from "./_install-files.js";

export type InstallOptions = {
  engine: "codex" | "claude";
  project: boolean;
  uninstall: boolean;
  wake: boolean;
  dryRun: boolean;
};

type Before = { text: string | undefined };
type Edit =
  | { ok: true; text: string | undefined; changed: boolean; changes?: string[]; notes?: string[] }
  | { ok: false; reason: string; error: string };
type Edited = FilePlan & { changes: string[]; notes: string[] };

const musterScript = () => path.join(path.dirname(fileURLToPath(import.meta.url)), "muster.js");

/** The muster command an engine runs: this Node and this CLI by absolute path, or PATH's muster. */
function musterCommand(project: boolean): [string, ...string[]] {
  return project ? ["muster"] : [process.execPath, musterScript()];
}

function serverCommand(project: boolean, wake: boolean) {
  const [command, ...args] = musterCommand(project);
  return { command, args: [...args, "mcp"], ...(wake ? { env: { MUSTER_WAKE: "1" } } : {}) };
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

/** Where a file's bytes from before muster's first install wait: muster's state, by its path. */
const recordOf = (env: NodeJS.ProcessEnv, file: string) =>
  path.join(
    stateRoot(env),
    "installs",
    `${createHash("sha256").update(file).digest("hex").slice(0, 16)}.json`,
  );

/** The file's bytes before muster's first install, when muster kept them. */
function beforeOf(record: string | undefined, file: string): Before | undefined {
  if (record === undefined) return undefined;
  try {
    const saved = JSON.parse(record) as { path?: unknown; original?: unknown };
    if (saved.path !== file) return undefined;
    return { text: typeof saved.original === "string" ? saved.original : undefined };
  } catch {
    return undefined;
  }
}

type Engines = typeof import("@muster/mcp/engines");
type FileEdit = {
  file: string;
  install: (text: string | undefined) => Edit;
  uninstall: (text: string | undefined, before?: Before) => Edit;
};

function engineFiles(
  engines: Engines,
  options: InstallOptions,
  env: NodeJS.ProcessEnv,
  root?: string,
): FileEdit[] {
  const server = serverCommand(options.project, options.wake);
  if (options.engine === "codex") {
    const folder = root
      ? path.join(root, ".codex")
      : env.CODEX_HOME || path.join(home(env), ".codex");
    const notify = engines.notifyProgram(musterCommand(options.project));
    return [
      {
        file: path.join(folder, "config.toml"),
        install: (text) => engines.installCodex(text, server, notify),
        uninstall: engines.uninstallCodex,
      },
    ];
  }
  const configDir = env.CLAUDE_CONFIG_DIR || path.join(home(env), ".claude");
  return [
    {
      file: root
        ? path.join(root, ".mcp.json")
        : env.CLAUDE_CONFIG_DIR
          ? path.join(env.CLAUDE_CONFIG_DIR, ".claude.json")
          : path.join(home(env), ".claude.json"),
      install: (text) => engines.installClaudeMcp(text, server),
      uninstall: engines.uninstallClaudeMcp,
    },
    {
      file: root
        ? path.join(root, ".claude", "settings.json")
        : path.join(configDir, "settings.json"),
      install: (text) => engines.installClaudeHooks(text, server),
      uninstall: engines.uninstallClaudeHooks,
    },
  ];
}

/** Every file's edit, decided before anything is written: one refusal stops them all. */
async function planEdits(edits: FileEdit[], options: InstallOptions, env: NodeJS.ProcessEnv) {
  const files: Edited[] = [];
  const records: FilePlan[] = [];
  for (const edit of edits) {
    const read = await readPlan(edit.file);
    const record = await readPlan(recordOf(env, edit.file));
    const result = options.uninstall
      ? edit.uninstall(read.before, beforeOf(record.before, edit.file))
      : edit.install(read.before);
    if (!result.ok)
      throw new Refusal(result.reason, `${edit.file}: ${result.error}; nothing was changed`);
    const changed = result.text !== read.before;
    files.push({
      ...read,
      after: result.text,
      changes: changed ? (result.changes ?? []) : [],
      notes: changed ? (result.notes ?? []) : [],
    });
    if (options.uninstall && record.before !== undefined)
      records.push({ ...record, after: undefined });
    else if (!options.uninstall && changed && record.before === undefined)
      records.push({
        ...record,
        after: `${JSON.stringify({ path: edit.file, original: read.before ?? null })}\n`,
      });
  }
  return { files, records };
}

export async function installCommand(context: Context, options: InstallOptions) {
  const engines = await import("@muster/mcp/engines");
  const env = context.io.env;
  const root = options.project ? await projectRoot(context) : undefined;
  const { files, records } = await planEdits(
    engineFiles(engines, options, env, root),
    options,
    env,
  );
  const notes = files.flatMap((file) => file.notes);
  if (options.project && !options.uninstall) notes.push(...(await projectNotes(options, env)));
  const diffs = options.dryRun ? await diffsOf(files) : undefined;
  if (!options.dryRun) await commitPlans([...records, ...files]);
  const report = files.map((file, index) => ({
    path: file.file,
    ...(file.target !== file.file ? { target: file.target } : {}),
    changed: file.after !== file.before,
    changes: file.changes,
    ...(diffs ? { diff: diffs[index] } : {}),
  }));
  if (context.json)
    return context.emit({
      ok: true,
      engine: options.engine,
      uninstall: options.uninstall,
      dryRun: options.dryRun,
      files: report,
      notes,
    });
  const name = options.engine === "codex" ? "Codex" : "Claude Code";
  for (const [index, file] of report.entries()) {
    const verb = options.uninstall
      ? `${options.dryRun ? "would remove" : "removed"} muster from`
      : `${options.dryRun ? "would set" : "set"} up muster in`;
    const through = "target" in file ? ` (through the link, in ${file.target})` : "";
    context.out(
      file.changed
        ? `${name}: ${verb} ${file.path}${through}`
        : `${name}: ${file.path} is already as it should be`,
    );
    for (const change of file.changes) context.out(`  ${options.uninstall ? "-" : "+"} ${change}`);
    if (diffs?.[index]) context.out(diffs[index].trimEnd());
  }
  for (const note of notes) context.out(`  ${note}`);
  if (options.dryRun) context.out("Nothing was written (--dry-run).");
}

/** A unified diff of each file's change ("" where nothing changes). */
export async function diffsOf(files: readonly FilePlan[]) {
  const { createTwoFilesPatch } = await import("diff");
  return files.map((file) =>
    file.after === file.before
      ? ""
      : createTwoFilesPatch(
          file.file,
          file.file,
          shownText(file, file.before) ?? "",
          shownText(file, file.after) ?? "",
          "now",
          "after",
        ),
  );
}

/** What a project install asks of each teammate. */
async function projectNotes(options: InstallOptions, env: NodeJS.ProcessEnv) {
  const files =
    options.engine === "codex" ? ".codex/config.toml" : ".mcp.json and .claude/settings.json";
  const notes = [
    `These files name no path of this machine: they run \`muster\` from PATH, so commit ${files} and every teammate with muster installed (npm install -g @muster/cli) gets it.`,
  ];
  if (options.engine === "claude")
    notes.push(
      "Claude Code asks each teammate once to approve the project's MCP servers (.mcp.json).",
      "A teammate whose PATH has no muster gets Claude Code's edits refused (the lease check cannot run) until muster is installed.",
    );
  if (!(await onPath("muster", env.PATH)))
    notes.push(
      "muster is not on this shell's PATH: install it (npm install -g @muster/cli), or these files cannot start it.",
    );
  return notes;
}

/** Whether `program` is an executable on `PATH`. */
async function onPath(program: string, PATH: string | undefined) {
  for (const folder of (PATH ?? "").split(path.delimiter).filter(path.isAbsolute))
    if (
      await access(path.join(folder, program), constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return true;
  return false;
}
