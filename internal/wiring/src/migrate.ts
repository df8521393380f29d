// `muster migrate`: move a team between its folder and the NATS server it is configured for, in
// either direction, losing nothing: every record, claim, card, mailbox (unread and read) and
// receipt is copied into the empty destination, read back and counted, and only then taken out of
// the source (a folder is moved aside whole and kept; on NATS the copied keys are removed). It
// refuses while a member is live (it would write behind the copy's back) and says what to do.
import { readdirSync, renameSync } from "node:fs";
import path from "node:path";
import { nodeFs, nodeSleep, processFacts } from "@muster/node";
import { openFolderStore, openRoster, type RosterStore } from "@muster/roster";
import {
  type ContentsCount,
  clearContents,
  countContents,
  isEmpty,
  readContents,
  type StoreContents,
  within,
  writeContents,
} from "./store-contents.ts";
import { chooseStore } from "./team-store.ts";

export type MigrateRequest = {
  to: "nats" | "folder";
  dryRun: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
};

export type Migrated = {
  ok: true;
  dryRun: boolean;
  from: string;
  to: string;
  moved: ContentsCount;
  /** What was there but could not be read, left where it was. */
  skipped: string[];
  /**
   * Mail sealed to another member's key (`mail/<member>/<id>.json`): this person's key cannot
   * open it, so it was not moved; it stays, with its mailbox, where it was, for its recipient.
   */
  sealed: string[];
  /** Where the source's folder was kept (a move from the folder). */
  keptAt?: string | undefined;
  /** What the person does next, in one line. */
  next: string;
};

export type MigrateRefusal = {
  ok: false;
  reason: string;
  error: string;
  fix: string;
  live?: string[] | undefined;
};

const refuse = (reason: string, error: string, fix: string, live?: string[]): MigrateRefusal => ({
  ok: false,
  reason,
  error,
  fix,
  ...(live ? { live } : {}),
});

/** The members the source's rules judge live, by label. */
async function liveMembers(store: RosterStore): Promise<string[] | undefined> {
  const opened = await openRoster({
    store,
    clock: Date.now,
    processes: processFacts,
    sleep: nodeSleep,
  });
  if (!opened.ok) return undefined;
  const read = await opened.roster.read();
  if (!read.ok) return undefined;
  return read.members.filter((member) => member.state === "live").map((member) => member.label);
}

/** Whether `whole` holds every item of `part`, its read mail read. */
function holds(whole: StoreContents, part: StoreContents): boolean {
  const read = new Set(
    whole.mailboxes.flatMap((box) => box.read.map((entry) => `${box.member}/${entry.id}`)),
  );
  return (
    within(part, whole) &&
    part.mailboxes.every((box) => box.read.every((entry) => read.has(`${box.member}/${entry.id}`)))
  );
}

/** Where the folder was kept by a run to NATS: the newest `<dir>.moved-to-nats-…`, if any. */
function keptFolder(dir: string): string | undefined {
  const prefix = `${path.basename(dir)}.moved-to-nats-`;
  try {
    const kept = readdirSync(path.dirname(dir))
      .filter((name) => name.startsWith(prefix))
      .sort();
    const newest = kept.at(-1);
    return newest === undefined ? undefined : path.join(path.dirname(dir), newest);
  } catch {
    return undefined;
  }
}

/** A source with nothing left and a destination that holds the team: moved by an earlier run. */
function movedBefore(request: MigrateRequest, chosen: { folder: { dir: string } }) {
  const keptAt = request.to === "nats" ? keptFolder(chosen.folder.dir) : undefined;
  const where = keptAt ? `; its folder was kept at ${keptAt}` : "";
  return {
    ...(keptAt ? { keptAt } : {}),
    next: `nothing left to move: the team was moved already${where}`,
  };
}

/** How long a test's hold point holds a migrate (ms): a test kills it well within; nothing hangs. */
const PAUSE_MS = 10_000;

/**
 * Hold half way through the copy or the clear when the test names it
 * (`MUSTER_MIGRATE_PAUSE=copy|clear`), saying so on stderr, so a kill lands part way, not by luck;
 * for `PAUSE_MS` at most, then go on, saying so: a variable left set never hangs a migrate.
 */
const pauseAt = (name: "copy" | "clear") => async () => {
  if (process.env.MUSTER_MIGRATE_PAUSE !== name) return;
  process.stderr.write(`muster migrate: paused at ${name}\n`);
  await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  process.stderr.write(
    `muster migrate: going on after ${PAUSE_MS / 1000} s at ${name} (MUSTER_MIGRATE_PAUSE is a test's hold point: unset it)\n`,
  );
};

/** What the report's last line adds when mail sealed to others' keys was not moved. */
function notCarried(sealed: readonly string[]): string {
  if (sealed.length === 0) return "";
  const members = [...new Set(sealed.map((name) => name.split("/")[1]))].join(", ");
  const count = sealed.length === 1 ? "1 message" : `${sealed.length} messages`;
  return `; ${count} sealed to another member's key (${members}) could not be opened here: not moved, kept on NATS with its mailbox, where its recipient reads it (with MUSTER_NATS set)`;
}

/** Move the team as asked, or say why not; `dryRun` reads both sides and writes nothing. */
export async function migrateTeam(request: MigrateRequest): Promise<Migrated | MigrateRefusal> {
  const chosen = await chooseStore({ cwd: request.cwd, env: request.env });
  if (!chosen.ok) return chosen;
  if (chosen.store !== "nats")
    return refuse(
      "no-nats",
      "the team has no NATS server configured: there is nowhere to move it",
      "set MUSTER_NATS and MUSTER_NATS_CREDS (or [nats] in muster.toml), then migrate again",
    );
  const folder = await openFolderStore({ dir: chosen.folder.dir, fs: nodeFs, clock: Date.now });
  if (!folder.ok) return folder;
  const { openNatsStore } = await import("@muster/nats");
  const nats = await openNatsStore(chosen.settings, chosen.team, { reconnect: false });
  if (!nats.ok) return nats;
  try {
    const [source, destination] =
      request.to === "nats" ? [folder.store, nats.store] : [nats.store, folder.store];
    const live = await liveMembers(source);
    if (live === undefined)
      return refuse(
        "roster-unknown",
        `cannot read the team in ${source.where}`,
        "muster doctor says why",
      );
    if (live.length > 0)
      return refuse(
        "members-live",
        `${live.join(", ")} ${live.length === 1 ? "is" : "are"} live on the team in ${source.where}`,
        "have them leave (muster leave, or end their sessions), then migrate again: a member that is gone moves with the team",
        live,
      );
    const contents = await readContents(source);
    const there = await readContents(destination);
    // An interrupted run left part of the copy (the destination holds part of the source), or
    // the whole copy and part of the source (cut short while clearing it): either is finished.
    // Anything else in the destination is another team's, and refused.
    if (!isEmpty(there) && !within(contents, there) && !within(there, contents))
      return refuse(
        "destination-not-empty",
        `${destination.where} already holds a team`,
        request.to === "folder"
          ? `move the folder aside (mv ${chosen.folder.dir} ${chosen.folder.dir}.old), then migrate again`
          : "this team is on NATS already: unset MUSTER_NATS to use the folder, or migrate --to folder",
      );
    const report = {
      ok: true as const,
      dryRun: request.dryRun,
      from: source.where,
      to: destination.where,
      moved: countContents(contents),
      skipped: contents.skipped,
      sealed: contents.sealed,
    };
    const next =
      request.to === "nats"
        ? "done: every clone with these settings is on this team now"
        : `done: now unset MUSTER_NATS (or take [nats] out of muster.toml), or muster keeps using NATS${notCarried(contents.sealed)}`;
    if (request.dryRun) return { ...report, next: "nothing written: run it without --dry-run" };
    if (isEmpty(contents) && !isEmpty(there)) return { ...report, ...movedBefore(request, chosen) };
    const written = holds(there, contents)
      ? { conflicts: [] }
      : await writeContents(destination, contents, there, pauseAt("copy"));
    if (written.conflicts.length > 0 || !holds(await readContents(destination), contents))
      return refuse(
        "incomplete",
        `the copy into ${destination.where} is not whole (${written.conflicts.length} keys there already); ${source.where} is untouched`,
        "make sure nobody uses the team, then migrate again: it goes on from what is there",
      );
    if (request.to === "folder") {
      await clearContents(source, contents, pauseAt("clear"));
      return { ...report, next };
    }
    const keptAt = `${chosen.folder.dir}.moved-to-nats-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    renameSync(chosen.folder.dir, keptAt);
    return { ...report, keptAt, next };
  } finally {
    await nats.close();
  }
}
