// The folder store's mailboxes: a maildir per member (`mail/<id>/{tmp,new,cur}`), delivery by
// rename from tmp/ into new/, acknowledgement by a move to cur/, a retired mailbox moved aside
// whole to expired/<day>/. Nothing is followed out of the team: every folder is checked first.

import { mapBounded } from "./_bounded.js";
import { folderDoorbell } from "./_folder-doorbell.js";
import {
  checkRealFolder,
  ensureFolders,
  errorCode,
  errorText,
  FILE_MODE,
  isTempName,
  listFolder,
  type RosterFs,
  readIfPresent,
  tempBeside,
  uniqueName,
  unlinkIfPresent,
} from "./_fs.js";
import type { Layout } from "./_layout.js";
import type { MailListing, MailStore, Retired } from "./_store.js";
import { validateId } from "./_validate.js";

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const DAY_MS = 86_400_000;

/** The message id a file name gives (`<id>.json`), or undefined for a name that is not one. */
const idOf = (name: string) => {
  const id = name.endsWith(".json") ? name.slice(0, -5) : "";
  return validateId(id).ok ? id : undefined;
};

export function folderMail(fs: RosterFs, paths: Layout, clock: () => number): MailStore {
  const folders = (member: string) => [
    paths.mailbox(member),
    paths.mailTmp(member),
    paths.inboxFolder(member),
    paths.readFolder(member),
  ];
  const { ring, doorbell } = folderDoorbell(fs, paths, clock);
  return {
    ensure: (member) => ensureFolders(fs, folders(member)),
    async deliver(member, id, text, options = {}) {
      const delivered = await deliverFile(fs, paths, clock, { member, id, text }, options);
      if (delivered === "delivered" && !options.read) await ring(member);
      return delivered;
    },
    async unread(member) {
      const fresh = await listFolder(fs, paths.inboxFolder(member));
      if (fresh.length === 0) return { messages: [], duplicates: [], strays: [] };
      const read = new Set(await listFolder(fs, paths.readFolder(member)));
      return inFolder(fs, paths.inboxFolder(member), read);
    },
    read: (member) => inFolder(fs, paths.readFolder(member)),
    async get(member, id) {
      for (const [folder, read] of [
        [paths.inboxFolder(member), false],
        [paths.readFolder(member), true],
      ] as const) {
        const text = await readIfPresent(fs, `${folder}/${id}.json`).catch(() => undefined);
        if (text !== undefined) return { id, name: `${id}.json`, text, read };
      }
      return undefined;
    },
    ack: (member, ids) => ackFiles(fs, paths, member, ids),
    async discard(member, name, options = {}) {
      if (name.includes("/") || name === "" || name === "." || name === "..") return false;
      const path = `${paths.inboxFolder(member)}/${name}`;
      if (!options.setAside) return unlinkIfPresent(fs, path).catch(() => false);
      // A folder, a FIFO, a file that does not parse: moved aside, never deleted.
      const aside = paths.quarantineFile(`${uniqueName(clock())}-${member}-${name}`);
      return fs.rename(path, aside).then(
        () => true,
        () => false,
      );
    },
    waiting: (member) => waitingFiles(fs, paths.inboxFolder(member)),
    retire: (member, now) => retireMailbox(fs, paths, member, now),
    list: () => listMailboxes(fs, paths),
    clearRetired: (before) => clearExpired(fs, paths, before),
    folder: (member) => paths.inboxFolder(member),
    doorbell,
  };
}

/** The messages of one folder, read; with `known`, the names already read are duplicates. */
async function inFolder(fs: RosterFs, folder: string, known?: Set<string>): Promise<MailListing> {
  const listing: MailListing = { messages: [], duplicates: [], strays: [] };
  for (const name of await listFolder(fs, folder)) {
    if (isTempName(name)) continue;
    const id = idOf(name);
    if (id === undefined) {
      listing.strays.push({ name, error: "is not a message" });
      continue;
    }
    // Delivered again after a crash, and already read: recognised by id.
    if (known?.has(name)) {
      listing.duplicates.push(name);
      continue;
    }
    try {
      const text = await readIfPresent(fs, `${folder}/${name}`);
      if (text !== undefined) listing.messages.push({ id, name, text });
    } catch (error) {
      listing.strays.push({
        name,
        error: `cannot be read (${errorCode(error) ?? errorText(error)})`,
      });
    }
  }
  return listing;
}

/** One message written to tmp/, then renamed into new/ (or cur/ when it is born read). */
async function deliverFile(
  fs: RosterFs,
  paths: Layout,
  clock: () => number,
  message: { member: string; id: string; text: string },
  options: { read?: boolean },
): Promise<"delivered" | "duplicate"> {
  const { member, id, text } = message;
  const name = `${id}.json`;
  const inbox = paths.inboxFolder(member);
  const seen =
    (await readIfPresent(fs, `${inbox}/${name}`)) ??
    (await readIfPresent(fs, `${paths.readFolder(member)}/${name}`));
  if (seen !== undefined) return "duplicate";
  // An unpredictable temp name, created exclusively: a planted symlink is never followed.
  const temp = tempBeside(`${paths.mailTmp(member)}/${name}`, clock());
  await fs.writeFile(temp, text, FILE_MODE);
  await fs.rename(temp, `${options.read ? paths.readFolder(member) : inbox}/${name}`);
  return "delivered";
}

/** Acknowledge: each message moved from new/ to cur/; those not in new/ are missing. */
async function ackFiles(fs: RosterFs, paths: Layout, member: string, ids: readonly string[]) {
  const acked: string[] = [];
  const missing: string[] = [];
  const inbox = paths.inboxFolder(member);
  const readFolder = paths.readFolder(member);
  try {
    // A move through a planted symlink would pull a file in from outside the team.
    await checkRealFolder(fs, inbox);
    await checkRealFolder(fs, readFolder);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { acked, missing: [...ids] };
    throw error;
  }
  for (const id of ids) {
    try {
      await fs.rename(`${inbox}/${id}.json`, `${readFolder}/${id}.json`);
      acked.push(id);
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
      missing.push(id);
    }
  }
  return { acked, missing };
}

/** How many messages wait in a new/ folder, and when the oldest came. */
async function waitingFiles(fs: RosterFs, inbox: string) {
  const names = await listFolder(fs, inbox).catch(() => []);
  const candidates = names.filter((name) => name.endsWith(".json") && !isTempName(name));
  const facts = await mapBounded(candidates, (name) =>
    fs.lstat(`${inbox}/${name}`).catch(() => undefined),
  );
  const mail = facts.filter((fact) => fact && !fact.isDirectory && fact.isFile !== false);
  if (mail.length === 0) return { count: 0 };
  return { count: mail.length, oldestAt: Math.min(...mail.map((fact) => fact!.mtimeMs)) };
}

/** Every member's mailbox and when it last changed; what is not a folder is a stray. */
async function listMailboxes(fs: RosterFs, paths: Layout) {
  const mailboxes: { member: string; changedAt: number }[] = [];
  const strays: string[] = [];
  for (const member of await listFolder(fs, paths.mail)) {
    if (!validateId(member).ok) continue;
    const mailbox = paths.mailbox(member);
    const facts = await fs.lstat(mailbox).catch(() => undefined);
    if (!facts?.isDirectory || facts.isSymbolicLink) {
      strays.push(`mail/${member} is not a folder`);
      continue;
    }
    let changedAt = facts.mtimeMs;
    for (const sub of ["new", "cur"]) {
      const inner = await fs.lstat(`${mailbox}/${sub}`).catch(() => undefined);
      if (inner) changedAt = Math.max(changedAt, inner.mtimeMs);
    }
    mailboxes.push({ member, changedAt });
  }
  return { mailboxes, strays };
}

/** Remove the expired/<day>/ folders of days ended a day before `before`. */
async function clearExpired(fs: RosterFs, paths: Layout, before: number) {
  const cleared: string[] = [];
  for (const name of await listFolder(fs, paths.expired)) {
    const dated = /^\d{4}-\d{2}-\d{2}$/.test(name)
      ? Date.parse(`${name}T00:00:00.000Z`)
      : Number.NaN;
    if (Number.isNaN(dated) || dated + DAY_MS > before) continue;
    const facts = await fs.lstat(paths.expiredFolder(name)).catch(() => undefined);
    if (!facts?.isDirectory || facts.isSymbolicLink) continue;
    await fs.removeTree(paths.expiredFolder(name));
    cleared.push(`expired/${name}`);
  }
  return cleared;
}

/** How many regular message files wait in a new/ folder. */
async function unreadFiles(fs: RosterFs, folder: string): Promise<number> {
  const names = await listFolder(fs, folder).catch(() => []);
  return names.filter((name) => name.endsWith(".json") && !name.startsWith(".")).length;
}

/**
 * Retire `member`'s mailbox: move the whole folder aside in one rename (a send racing it then
 * fails whole, with no receipt, rather than landing in a folder about to be removed), keep its
 * unread mail as expired/<day>/<id>/, and remove the rest (read mail and write leftovers).
 * Undefined when there was no unread mail.
 */
async function retireMailbox(
  fs: RosterFs,
  paths: Layout,
  member: string,
  now: number,
): Promise<Retired | undefined> {
  const today = day(now);
  await ensureFolders(fs, [paths.expired, paths.expiredFolder(today)]);
  const retiring = paths.expiredMailbox(today, `.${member}-${uniqueName(now)}.retiring`);
  try {
    await fs.rename(paths.mailbox(member), retiring);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  let moved: Retired | undefined;
  const unread = await unreadFiles(fs, `${retiring}/new`);
  if (unread > 0) {
    let name = member;
    try {
      await fs.rename(`${retiring}/new`, paths.expiredMailbox(today, name));
    } catch (error) {
      if (errorCode(error) !== "EEXIST" && errorCode(error) !== "ENOTEMPTY") throw error;
      name = `${member}-${uniqueName(now)}`;
      await fs.rename(`${retiring}/new`, paths.expiredMailbox(today, name));
    }
    moved = { unread, where: `expired/${today}/${name}` };
  }
  await fs.removeTree(retiring);
  return moved;
}
