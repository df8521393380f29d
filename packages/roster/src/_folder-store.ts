// The folder store: the store contract (`_store.ts`) on the team folder, unchanged on disk. Each
// key is a file (`sessions/<id>.json`, `labels/<key>.json`, `locks/<key>.lock`, …, every path
// named in `_layout.ts`); rename is the commit, link the exclusive create, and a value's version
// is its text. Mail and receipts are in `_folder-mail.ts` and `_folder-receipts.ts`.
import { mapBounded } from "./_bounded.js";
import { folderMail } from "./_folder-mail.js";
import { folderReceipts } from "./_folder-receipts.js";
import { sweepFolder } from "./_folder-sweep.js";
import {
  createExclusive,
  displacedBeside,
  errorCode,
  errorText,
  isTempName,
  listFolder,
  type RosterFs,
  readIfPresent,
  tempBeside,
  uniqueName,
  unlinkIfPresent,
  writeWhole,
} from "./_fs.js";
import type { Layout } from "./_layout.js";
import type { Created, Listing, Replaced, RosterStore, Stored, StoreSpace } from "./_store.js";

const stored = (text: string): Stored => ({ text, version: text });

const suffixOf = (space: StoreSpace) => (space === "locks" ? ".lock" : ".json");

/**
 * Move the file at `path` aside and keep it aside only if `accept` holds for what was moved (its
 * text, or undefined when it cannot be read); otherwise put it back, exclusively. A writer may
 * slip in between a look and the move: what was moved is judged, never what was looked at. The
 * aside path, or undefined when nothing was moved or it went back.
 */
async function moveAside(
  fs: RosterFs,
  path: string,
  accept: (text: string | undefined) => boolean,
  now: number,
): Promise<string | undefined> {
  const aside = tempBeside(path, now);
  try {
    await fs.rename(path, aside);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  if (accept(await readIfPresent(fs, aside).catch(() => undefined))) return aside;
  // Changed hands between the look and the move: put it back unless another is there now.
  await fs.link(aside, path).catch(() => undefined);
  await fs.unlink(aside).catch(() => undefined);
  return undefined;
}

/** Remove the file at `path` only if it still holds what `expected` accepts. True when removed. */
async function removeIfSame(
  fs: RosterFs,
  path: string,
  expected: (text: string | undefined) => boolean,
  now: number,
): Promise<boolean> {
  if (!expected(await readIfPresent(fs, path).catch(() => undefined))) return false;
  const aside = await moveAside(fs, path, expected, now);
  if (aside === undefined) return false;
  await fs.unlink(aside).catch(() => undefined);
  return true;
}

/**
 * A takeover's commit with no compare-and-swap: move the judged value to its displaced name (only
 * if it still is the judged one; otherwise it goes back), then create ours exclusively. Won: the
 * displaced file goes. Lost to a fresh creator in the moment the key was free: it stays, for that
 * creator's `create` to take (`takeDisplaced`), so the winner learns the claim it replaced.
 */
async function takeOver(
  fs: RosterFs,
  path: string,
  change: { text: string; expected: string; now: number },
  aside: (name: string) => string,
): Promise<Replaced> {
  const { text, expected, now } = change;
  if ((await readIfPresent(fs, path).catch(() => undefined)) !== expected)
    return { ok: false, reason: "changed" };
  const displaced = displacedBeside(path);
  if (!(await moveToDisplaced(fs, path, displaced, aside))) return { ok: false, reason: "changed" };
  if ((await readIfPresent(fs, displaced).catch(() => undefined)) !== expected) {
    // Changed hands between the look and the move: put it back unless another is there now.
    await fs.link(displaced, path).catch(() => undefined);
    await fs.unlink(displaced).catch(() => undefined);
    return { ok: false, reason: "changed" };
  }
  if (!(await createExclusive(fs, path, text, now))) return { ok: false, reason: "cleared" };
  await fs.unlink(displaced).catch(() => undefined);
  return { ok: true, stored: stored(text) };
}

/** What a rename onto a name answers when a folder (or other non-file) is in the way. */
const IN_THE_WAY = new Set(["EISDIR", "ENOTDIR", "ENOTEMPTY", "EEXIST"]);

/**
 * Rename `path` to its displaced name; false when it is gone. A folder in the way there (planted,
 * or left by something else) is set aside to `aside(its name)` (quarantine/, never deleted) first,
 * so no entry at that name can stop a takeover.
 */
async function moveToDisplaced(
  fs: RosterFs,
  path: string,
  displaced: string,
  aside: (name: string) => string,
): Promise<boolean> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await fs.rename(path, displaced);
      return true;
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOENT") return false;
      if (attempt > 0 || code === undefined || !IN_THE_WAY.has(code)) throw error;
      await fs.rename(displaced, aside(displaced.slice(displaced.lastIndexOf("/") + 1)));
    }
  }
}

/** After a create won `path`: the value a takeover left displaced there, taken (once), if any. */
async function takeDisplaced(fs: RosterFs, path: string): Promise<string | undefined> {
  const displaced = displacedBeside(path);
  const text = await readIfPresent(fs, displaced).catch(() => undefined);
  if (text === undefined) return undefined;
  // Read before it goes: a crash in between leaves it for the next winner, never loses it.
  return (await unlinkIfPresent(fs, displaced).catch(() => false)) ? text : undefined;
}

/** The store on the team folder `paths.dir`, through `fs`. */
export function folderStore(fs: RosterFs, paths: Layout, clock: () => number): RosterStore {
  const file = (space: StoreSpace, key: string) => paths.keyFile(space, key);
  const store: RosterStore = {
    kind: "folder",
    where: `the team folder ${paths.dir}`,
    dir: paths.dir,
    async ready() {
      const marker = await readIfPresent(fs, paths.marker).catch(() => undefined);
      return marker === undefined
        ? { ok: false, error: `${paths.dir} is not a muster team folder` }
        : { ok: true };
    },
    async get(space, key) {
      const text = await readIfPresent(fs, file(space, key));
      return text === undefined ? undefined : stored(text);
    },
    async create(space, key, text): Promise<Created | undefined> {
      const path = file(space, key);
      if (!(await createExclusive(fs, path, text, clock()))) return undefined;
      const displaced = await takeDisplaced(fs, path);
      return displaced === undefined ? stored(text) : { ...stored(text), displaced };
    },
    async put(space, key, text) {
      await writeWhole(fs, file(space, key), text, clock());
      return stored(text);
    },
    async replace(space, key, text, expected, options = {}): Promise<Replaced> {
      const path = file(space, key);
      const now = clock();
      // Never over a value written meanwhile: move the judged one aside, then create ours.
      if (options.takeover) {
        const aside = (name: string) => paths.quarantineFile(`${uniqueName(now)}-${space}-${name}`);
        return takeOver(fs, path, { text, expected, now }, aside);
      }
      if ((await readIfPresent(fs, path)) !== expected) return { ok: false, reason: "changed" };
      await writeWhole(fs, path, text, now);
      return { ok: true, stored: stored(text) };
    },
    async remove(space, key, expected) {
      const path = file(space, key);
      if (expected === undefined) return unlinkIfPresent(fs, path);
      return removeIfSame(fs, path, (seen) => seen === expected, clock());
    },
    async setAside(space, key, isJunk) {
      return setAside(fs, paths, space, file(space, key), isJunk, clock());
    },
    list: (space) => listSpace(fs, paths.spaceFolder(space), suffixOf(space)),
    async writtenAt(space, key) {
      return (await fs.lstat(file(space, key)).catch(() => undefined))?.mtimeMs;
    },
    mail: folderMail(fs, paths, clock),
    receipts: folderReceipts(fs, paths, clock),
    sweep: (now, graceMs) => sweepFolder(fs, paths, now, graceMs),
  };
  return store;
}

/**
 * Move a file that is not what its space holds to quarantine/ (it is never deleted), if what was
 * moved still is junk: a value written there since the look (a taker that stalled past the lock's
 * break would otherwise quarantine the winner's) is put back, and false is answered.
 */
async function setAside(
  fs: RosterFs,
  paths: Layout,
  space: StoreSpace,
  path: string,
  isJunk: (text: string | undefined) => boolean,
  now: number,
): Promise<boolean> {
  const aside = await moveAside(fs, path, isJunk, now);
  if (aside === undefined) return false;
  const name = `${space}-${path.slice(path.lastIndexOf("/") + 1)}`;
  await fs.rename(aside, paths.quarantineFile(`${uniqueName(now)}-${name}`));
  return true;
}

/** Every `<key><suffix>` file of a folder, read concurrently; other names are strays. */
async function listSpace(fs: RosterFs, folder: string, suffix: string): Promise<Listing> {
  const names = (await listFolder(fs, folder)).filter((name) => !isTempName(name));
  const listing: Listing = { entries: [], unreadable: [], strays: [] };
  // Read concurrently, a few at a time: a team of 1,000 is 1,000 small reads.
  const read = await mapBounded(
    names,
    async (name): Promise<{ name: string; key?: string; text?: string; error?: string }> => {
      if (!name.endsWith(suffix)) return { name };
      const key = name.slice(0, -suffix.length);
      try {
        return { name, key, text: await readIfPresent(fs, `${folder}/${name}`) };
      } catch (error) {
        return { name, key, error: errorText(error) };
      }
    },
  );
  for (const each of read) {
    if (each.key === undefined) listing.strays.push(each.name);
    else if ("error" in each && each.error !== undefined)
      listing.unreadable.push({ key: each.key, name: each.name, error: each.error });
    else if ("text" in each && each.text !== undefined)
      listing.entries.push({ key: each.key, name: each.name, stored: stored(each.text) });
  }
  return listing;
}
