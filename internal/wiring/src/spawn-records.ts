// The spawn records: one file per label that muster spawned, in the team folder's `spawned/`.
// Written whole (a temporary name, then rename), mode 0600 in a 0700 folder; read as hostile
// (see parseSpawnRecord), and a folder that is not this user's real directory is refused. Only
// regular files are read: a FIFO, a symlink or a folder planted under a record's name is no record.
import { randomBytes } from "node:crypto";
import * as fs from "node:fs/promises";
import path from "node:path";
import { readRegularFile } from "@muster/node";
import { validateLabel } from "@muster/roster";
import { parseSpawnRecord, type SpawnRecord } from "@muster/tmux";
import { SpawnRefusal } from "./spawn-refusal.ts";

/** The team folder, or anything with its `dir`. */
type Team = { dir: string };

const folderOf = (team: Team) => path.join(team.dir, "spawned");

/** A label names a file only when it is a label: no path can be smuggled in. */
export function checkLabel(label: string): string {
  // The roster's own check, with its fix: the label a spawned teammate will join under.
  const valid = validateLabel(label);
  if (!valid.ok) throw new SpawnRefusal("bad-label", valid.error, valid.fix);
  return label.toLowerCase();
}

async function ownFolder(team: Team, create: boolean): Promise<string | undefined> {
  const folder = folderOf(team);
  if (create) await fs.mkdir(folder, { mode: 0o700 }).catch(() => undefined);
  const stats = await fs.lstat(folder).catch(() => undefined);
  if (!stats) return undefined;
  if (!stats.isDirectory() || (process.getuid && stats.uid !== process.getuid()))
    throw new SpawnRefusal(
      "bad-folder",
      `${folder} is not this user's own folder: muster will not use it`,
      "remove it",
    );
  return folder;
}

export async function writeSpawnRecord(team: Team, record: SpawnRecord): Promise<void> {
  const folder = (await ownFolder(team, true))!;
  const temporary = path.join(folder, `.${record.label}.${randomBytes(6).toString("hex")}.tmp`);
  await fs.writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`, {
    mode: 0o600,
    flag: "wx",
  });
  await fs.rename(temporary, path.join(folder, `${record.label}.json`));
}

/** A record's text; undefined when it is absent or not a regular file (a FIFO, a link, a folder). */
function readRecord(file: string): string | undefined {
  try {
    return readRegularFile(file);
  } catch {
    return undefined;
  }
}

export async function readSpawnRecord(team: Team, label: string): Promise<SpawnRecord | undefined> {
  const folder = await ownFolder(team, false);
  if (!folder) return undefined;
  const text = readRecord(path.join(folder, `${checkLabel(label)}.json`));
  return text === undefined ? undefined : parseSpawnRecord(text);
}

export async function readSpawnRecords(
  team: Team,
): Promise<{ records: SpawnRecord[]; warnings: string[] }> {
  const folder = await ownFolder(team, false);
  if (!folder) return { records: [], warnings: [] };
  const records: SpawnRecord[] = [];
  const warnings: string[] = [];
  for (const name of (await fs.readdir(folder)).sort()) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    const record = parseSpawnRecord(readRecord(path.join(folder, name)) ?? "");
    if (record && `${record.label}.json` === name) records.push(record);
    else warnings.push(`skipped ${path.join(folder, name)}: not a spawn record muster wrote`);
  }
  return { records, warnings };
}

export async function removeSpawnRecord(team: Team, label: string): Promise<void> {
  const folder = await ownFolder(team, false);
  if (folder)
    await fs.unlink(path.join(folder, `${checkLabel(label)}.json`)).catch(() => undefined);
}

/** A Codex daemon a spawned Codex started, kept at its stop because another Codex might use it. */
export type KeptDaemon = { pid: number; start: string; codexHome: string };

const KEPT_DAEMONS = ".codex-daemons.json";

/** The daemons an earlier stop kept (read as hostile: a field that is off drops its entry). */
export async function readKeptDaemons(team: Team): Promise<KeptDaemon[]> {
  const folder = await ownFolder(team, false);
  const text = folder ? readRecord(path.join(folder, KEPT_DAEMONS)) : undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? "[]");
  } catch {
    return [];
  }
  return (Array.isArray(parsed) ? parsed : []).filter(
    (entry): entry is KeptDaemon =>
      Number.isInteger(entry?.pid) &&
      entry.pid > 1 &&
      typeof entry.start === "string" &&
      /^\d+$/.test(entry.start) &&
      typeof entry.codexHome === "string" &&
      path.isAbsolute(entry.codexHome),
  );
}

/** Keep these daemons for a later stop to end (none: the file goes). */
export async function writeKeptDaemons(team: Team, daemons: readonly KeptDaemon[]): Promise<void> {
  const folder = (await ownFolder(team, true))!;
  const file = path.join(folder, KEPT_DAEMONS);
  if (daemons.length === 0) return fs.unlink(file).catch(() => undefined);
  const temporary = path.join(folder, `.codex-daemons.${randomBytes(6).toString("hex")}.tmp`);
  await fs.writeFile(temporary, `${JSON.stringify(daemons)}\n`, { mode: 0o600, flag: "wx" });
  await fs.rename(temporary, file);
}
