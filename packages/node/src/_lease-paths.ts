// The paths an edit really changes, as the filesystem sees them, for the lease guards: the file an
// engine's tool names, spelled by that engine's own rules (pi strips a leading `@` and reads
// `file://` URLs), resolved against its working directory, then followed through every symlink of
// the part that exists (a `CLAUDE.md` that links to a leased `AGENTS.md`, a checkout reached
// through a linked folder) and through a dangling link at the end (the write creates its target).
// Both the path as named and the path written are checked: a lease on either stops the edit.
import { readlink as readlinkThen, realpath as realpathThen } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** How the engine whose tool names the file spells a path: as given, or by pi 1.6.0's rules. */
export type PathSpelling = "plain" | "pi";

export type WrittenPaths = { ok: true; paths: string[] } | { ok: false; error: string };

/** pi's `normalizeUnicodeSpaces`: these spaces in a path are read as plain spaces. */
const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/**
 * A path as pi 1.6.0's edit and write tools read it (`resolveToCwd` in its path-utils): unicode
 * spaces made plain, one leading `@` dropped, `~` and `~/…` under the home folder, a `file://` URL
 * turned into its path (a URL Node cannot read throws, as it does in pi).
 */
export function piToolPath(input: string, home = homedir()): string {
  let spelled = input.replace(UNICODE_SPACES, " ");
  if (spelled.startsWith("@")) spelled = spelled.slice(1);
  if (spelled === "~") return home;
  if (spelled.startsWith("~/")) return path.join(home, spelled.slice(2));
  if (/^file:\/\//.test(spelled)) return fileURLToPath(spelled);
  return spelled;
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

// fs's callbacks, not fs/promises: its import loads readline, the watchers and more (a few ms of
// every guard, which runs before every edit). `realpath.native` is the call fs/promises makes.
const realpath = (named: string) =>
  new Promise<string>((resolve, reject) =>
    realpathThen.native(named, (error, real) => (error ? reject(error) : resolve(real))),
  );
const readlink = (named: string) =>
  new Promise<string>((resolve, reject) =>
    readlinkThen(named, (error, link) => (error ? reject(error) : resolve(link))),
  );

/**
 * Where a write of `absolute` lands: the real path of the part that exists, then the rest; a
 * dangling symlink met on the way is followed to where it points (the write creates that file).
 */
async function physicalPath(absolute: string, budget = { hops: 0 }): Promise<string> {
  budget.hops += 1;
  if (budget.hops > 256)
    throw Object.assign(new Error(`too many symbolic links in ${absolute}`), { code: "ELOOP" });
  try {
    return await realpath(absolute);
  } catch (error) {
    if (code(error) !== "ENOENT") throw error;
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  const folder = await physicalPath(parent, budget);
  const joined = path.join(folder, path.basename(absolute));
  const link = await readlink(joined).catch((error) => {
    // Not a link (EINVAL), or nothing there: the write makes this very path.
    if (code(error) === "EINVAL" || code(error) === "ENOENT") return undefined;
    throw error;
  });
  return link === undefined ? joined : physicalPath(path.resolve(folder, link), budget);
}

/** `file` relative to `root`, `/`-separated; undefined when it is outside. */
function inside(root: string, file: string): string | undefined {
  const relative = path.relative(root, file);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join("/");
}

/**
 * The repository-relative paths a write of `file` changes: as named and as written (deduplicated),
 * each only when it is inside the repository `root` (or its real path). None when the write lands
 * outside. `{ ok: false }` when it cannot be told (a URL pi cannot read, a folder that cannot be
 * searched, a link loop): a guard then refuses.
 */
export async function writtenPaths(
  file: string,
  where: { cwd: string; root: string; spelling: PathSpelling; home?: string | undefined },
): Promise<WrittenPaths> {
  try {
    const spelled = where.spelling === "pi" ? piToolPath(file, where.home) : file;
    if (spelled.includes("\0")) return { ok: false, error: "the path holds a NUL byte" };
    const named = path.resolve(where.cwd, spelled);
    const [written, realRoot] = await Promise.all([
      physicalPath(named),
      realpath(where.root).catch(() => where.root),
    ]);
    const paths = [
      inside(where.root, named),
      inside(realRoot, named),
      inside(where.root, written),
      inside(realRoot, written),
    ].filter((entry): entry is string => entry !== undefined);
    return { ok: true, paths: [...new Set(paths)] };
  } catch (error) {
    return {
      ok: false,
      error: `cannot tell where ${file} is written: ${(error as Error).message}`,
    };
  }
}
