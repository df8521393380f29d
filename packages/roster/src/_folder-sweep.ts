// The folder store's own leftovers: the temp files interrupted writes leave (a crash between the
// write of a temp file and its rename or link), cleared once older than any write in progress.
// Only regular files named as muster names its temp files; nothing else is touched.
import {
  errorCode,
  isDisplacedName,
  isOwnTempName,
  isTempName,
  listFolder,
  type RosterFs,
  unlinkIfPresent,
} from "./_fs.js";
import { CLAIM_SPACES, type Layout } from "./_layout.js";
import { validateId } from "./_validate.js";

type Report = { cleared: string[]; warnings: string[] };

async function clearIfOld(fs: RosterFs, file: string, now: number, ms: number): Promise<boolean> {
  const facts = await fs.lstat(file).catch(() => undefined);
  // A displaced claim keeps the mtime of the claim it was: it is as old as its move there (ctime).
  const moved = isDisplacedName(file.slice(file.lastIndexOf("/") + 1)) ? facts?.ctimeMs : undefined;
  const at = Math.max(facts?.mtimeMs ?? 0, moved ?? 0);
  if (!facts || facts.isDirectory || now - at <= ms) return false;
  return unlinkIfPresent(fs, file).catch((error: unknown) => {
    if (errorCode(error) === "EISDIR" || errorCode(error) === "EPERM") return false;
    throw error;
  });
}

/** Temp files in one folder: `strict` only exactly the names `tempBeside` makes, regular files. */
async function clearTemps(
  fs: RosterFs,
  paths: Layout,
  folder: string,
  options: { now: number; graceMs: number; strict: boolean },
  report: Report,
) {
  const path = paths.spaceFolder(folder);
  for (const name of await listFolder(fs, path)) {
    const own = isOwnTempName(name) || isDisplacedName(name);
    if (!(options.strict ? own : isTempName(name))) continue;
    if (options.strict) {
      const facts = await fs.lstat(`${path}/${name}`).catch(() => undefined);
      if (!facts || facts.isSymbolicLink || facts.isDirectory) continue;
    }
    if (await clearIfOld(fs, `${path}/${name}`, options.now, options.graceMs))
      report.cleared.push(`${folder}/${name}`);
  }
}

/** Every folder's leftovers; a folder that cannot be read is a warning, never a failure. */
export async function sweepFolder(
  fs: RosterFs,
  paths: Layout,
  now: number,
  graceMs: number,
): Promise<Report> {
  const report: Report = { cleared: [], warnings: [] };
  const loose = { now, graceMs, strict: false };
  const strict = { now, graceMs, strict: true };
  const steps: [string, () => Promise<void>][] = [
    ["sessions", () => clearTemps(fs, paths, "sessions", loose, report)],
    ["labels", () => clearTemps(fs, paths, "labels", loose, report)],
    ["locks", () => clearTemps(fs, paths, "locks", loose, report)],
    ["board", () => clearTemps(fs, paths, "board", strict, report)],
    ...CLAIM_SPACES.filter((space) => space !== "labels").map(
      (space): [string, () => Promise<void>] => [
        space,
        () => clearTemps(fs, paths, space, strict, report),
      ],
    ),
    ["mail", () => clearMailTemps(fs, paths, now, graceMs, report)],
  ];
  for (const [folder, step] of steps) {
    try {
      await step();
    } catch (error) {
      report.warnings.push(
        `${folder}/ ${error instanceof Error ? error.message : String(error)}; skipped`,
      );
    }
  }
  return report;
}

/** What a write into a mailbox's tmp/ left behind, in every mailbox. */
async function clearMailTemps(
  fs: RosterFs,
  paths: Layout,
  now: number,
  graceMs: number,
  report: Report,
) {
  for (const member of await listFolder(fs, paths.mail)) {
    if (!validateId(member).ok) continue;
    const facts = await fs.lstat(paths.mailbox(member)).catch(() => undefined);
    if (!facts?.isDirectory || facts.isSymbolicLink) continue;
    const tmp = paths.mailTmp(member);
    for (const name of await listFolder(fs, tmp).catch(() => [])) {
      if (await clearIfOld(fs, `${tmp}/${name}`, now, graceMs))
        report.cleared.push(`mail/${member}/tmp/${name}`);
    }
  }
}
