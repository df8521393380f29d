// How `muster install` reads and writes the files the user owns: through a symlink to the file it
// names (a dotfiles repository's copy), never over the link; every file of one install written
// together or not at all. Each new text goes to a temp file beside its target (created
// exclusively, synced), and only when every one is written are they renamed into place; a failure
// before that removes every temp file and folder it made, so a full disk changes nothing. A file
// is read as bytes: one edited as bytes (the tmux config, whatever its encoding) is held one
// character per byte (latin1) and written back the same way, so every byte muster does not own
// comes back; one edited as text (JSON, TOML) must be valid UTF-8, or it is refused, not rewritten.
import { randomBytes } from "node:crypto";
import {
  lstat,
  mkdir,
  open,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  rmdir,
  stat,
} from "node:fs/promises";
import path from "node:path";
import { Refusal } from "./_context.js";

/** One file of an install: the path as named, where writes land, and its text before and after. */
export type FilePlan = {
  file: string;
  /** The file itself, or the end of its symlink chain. */
  target: string;
  before: string | undefined;
  /** undefined: the file goes away. */
  after: string | undefined;
  /** `before` and `after` hold one character per byte (latin1): the file is edited as bytes. */
  bytes?: boolean;
};

const code = (error: unknown) => (error as NodeJS.ErrnoException).code ?? "";

/** Where a write of `file` lands: the file, or through its symlinks the file they name. */
export async function targetOf(file: string): Promise<string> {
  let current = file;
  for (let hops = 0; hops < 40; hops += 1) {
    const facts = await lstat(current).catch((error) => {
      if (code(error) === "ENOENT") return undefined;
      throw error;
    });
    if (!facts) {
      if (current === file) return file;
      // A link to a file not made yet: it is made there, in a folder that must exist.
      const folder = await realpath(path.dirname(current)).catch(() => undefined);
      if (!folder)
        throw new Refusal(
          "dangling-link",
          `${file} is a symlink to ${current}, whose folder does not exist: make it, or remove the link`,
        );
      return path.join(folder, path.basename(current));
    }
    if (facts.isSymbolicLink()) {
      current = path.resolve(path.dirname(current), await readlink(current));
      continue;
    }
    if (!facts.isFile())
      throw new Refusal(
        "not-a-file",
        `${current} is not a regular file: move it away, then run it again`,
      );
    return current === file ? file : await realpath(current);
  }
  throw new Refusal("link-loop", `${file} is a symlink loop: fix the link, then run it again`);
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Read `file` (through its symlinks) for an install: as bytes (one character each, for an edit
 * that adds and removes ASCII lines only), else as UTF-8, refused when it is not.
 */
export async function readPlan(
  file: string,
  options: { bytes?: boolean } = {},
): Promise<Omit<FilePlan, "after">> {
  const target = await targetOf(file);
  const raw = await readFile(target).catch((error) => {
    if (code(error) === "ENOENT") return undefined;
    throw error;
  });
  if (raw === undefined) return { file, target, before: undefined, bytes: options.bytes };
  if (options.bytes) return { file, target, before: raw.toString("latin1"), bytes: true };
  try {
    return { file, target, before: utf8.decode(raw) };
  } catch {
    throw new Refusal(
      "not-utf8",
      `${file} is not valid UTF-8, and muster would have to rewrite bytes it does not own: save it as UTF-8, then run it again; nothing was changed`,
    );
  }
}

/** A plan's text as a person reads it: a file edited as bytes shown as UTF-8. */
export const shownText = (plan: Pick<FilePlan, "bytes">, text: string | undefined) =>
  plan.bytes && text !== undefined ? Buffer.from(text, "latin1").toString("utf8") : text;

type Staged = { plan: FilePlan; temp: string };

/** Make the folders up to `folder`; the ones made are pushed to `made` (deepest last). */
async function makeFolders(folder: string, made: string[]) {
  const first = await mkdir(folder, { recursive: true, mode: 0o700 });
  if (first === undefined) return;
  const chain: string[] = [];
  for (let at = folder; ; at = path.dirname(at)) {
    chain.unshift(at);
    if (at === first || at === path.dirname(at)) break;
  }
  made.push(...chain);
}

async function stage(plan: FilePlan, made: string[]): Promise<Staged> {
  const mode = await stat(plan.target).then(
    (facts) => facts.mode & 0o777,
    () => 0o600,
  );
  await makeFolders(path.dirname(plan.target), made);
  const temp = `${plan.target}.muster-${randomBytes(6).toString("hex")}`;
  const handle = await open(temp, "wx", mode);
  try {
    await handle.writeFile(plan.after ?? "", plan.bytes ? "latin1" : "utf8");
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  return { plan, temp };
}

/**
 * Write every changed file of `plans`, all or none. A failure throws a one-line refusal after
 * removing the temp files and folders this made, the files untouched.
 */
export async function commitPlans(plans: readonly FilePlan[]): Promise<void> {
  const changed = plans.filter((plan) => plan.after !== plan.before);
  const staged: Staged[] = [];
  const made: string[] = [];
  try {
    for (const plan of changed) if (plan.after !== undefined) staged.push(await stage(plan, made));
  } catch (error) {
    await Promise.all(staged.map((entry) => rm(entry.temp, { force: true })));
    for (const folder of made.reverse()) await rmdir(folder).catch(() => {});
    const failed = changed[staged.length] ?? changed[0];
    throw new Refusal(
      "write-failed",
      `could not write ${failed?.file} (${code(error) || (error as Error).message}); nothing was changed: ${code(error) === "ENOSPC" ? "free some disk space" : "fix that"}, then run it again`,
    );
  }
  for (const entry of staged) await rename(entry.temp, entry.plan.target);
  for (const plan of changed) if (plan.after === undefined) await rm(plan.target, { force: true });
}
