// What `muster up` looks at before it starts anything: which wanted members are live already (on
// the roster under their label, or their pane still the one muster opened), and whether each
// engine it would start can work (the door's `ready`, asked once per engine and arguments, at
// once): one that cannot refuses the whole `up`, nothing opened.
import { realpathSync, statSync } from "node:fs";
import { holderOf } from "@muster/core";
import { resumePlace } from "@muster/core/internal";
import { inotifyWatches } from "@muster/node";
import type { SpawnRecord } from "@muster/tmux";
import { worktrees } from "./land-git.ts";
import { readSpawnRecord } from "./spawn-records.ts";
import type { SpawnFailure } from "./spawn-types.ts";
import { provenDead, spawnedRuns } from "./spawned.ts";
import type { TeamEffects } from "./team-up-types.ts";

/**
 * How long after a `down` or `stop` marked a member as ending (then was killed before it recorded
 * the end) `up` waits for it to go: it was asked to quit, or is about to be, and is not live for
 * long. A mark older than that is no longer evidence: the member that stayed is live.
 */
const ENDING_WAIT_MS = 10_000;

/**
 * Until when a member counts as ending: ENDING_WAIT_MS after the latest mark a down or stop left,
 * on its spawn record (which outlives the member's own leave as it quits) or its roster record.
 * A mark is a time another process wrote: one after `began` (when `up` first looked) counts as
 * made then, so no mark holds `up` longer than the wait.
 */
function endingUntil(
  record: SpawnRecord | undefined,
  holder: { ended?: { at: string } | undefined } | undefined,
  began: number,
): number {
  const marks = [record?.ending, holder?.ended?.at]
    .map((at) => (at === undefined ? Number.NaN : Math.min(Date.parse(at), began)))
    .filter(Number.isFinite);
  return marks.length === 0 ? 0 : Math.max(...marks) + ENDING_WAIT_MS;
}

/** Is the member live: on the roster under its label, or its pane still running what muster started? */
export async function liveNow(
  effects: TeamEffects,
  label: string,
  record: SpawnRecord | undefined,
) {
  let until = 0;
  const began = Date.now();
  for (;;) {
    const read = await effects.roster.read();
    const named = read.ok ? holderOf(read.members, label) : undefined;
    // One proven dead (crashed, or ended) holds the label for no one: it is not live.
    const holder = named && !provenDead(named) ? named : undefined;
    // Marked as ending by a `down` or `stop` killed before it recorded the end: it was asked to
    // quit (or is about to be). pi leaves the roster on its way out, its process and pane a moment
    // later: until both are gone, or the wait is over, it is not called live.
    until = Math.max(until, endingUntil(record, named, began));
    const ending = Date.now() < until;
    const pane =
      (holder === undefined || ending) &&
      record !== undefined &&
      record.down === undefined &&
      (await spawnedRuns(effects.run, record));
    if (ending && (holder !== undefined || pane))
      await new Promise((resolve) => setTimeout(resolve, 200));
    else if (holder) return holder;
    else if (pane) return { id: undefined };
    else return undefined;
  }
}

/** The first wanted member that is not live and whose engine cannot work: the refusal, named for it. */
export async function refuseUnready(
  wanted: readonly { label: string; engine: string; args: readonly string[] }[],
  effects: TeamEffects,
  cwd: string,
): Promise<SpawnFailure | undefined> {
  const { ready } = effects;
  if (!ready) return undefined;
  const asked = new Map<string, Promise<SpawnFailure | undefined>>();
  const answers = await Promise.all(
    wanted.map(async (member) => {
      const record = await readSpawnRecord({ dir: effects.teamDir }, member.label);
      if (await liveNow(effects, member.label, record)) return undefined;
      const key = JSON.stringify([member.engine, member.args]);
      if (!asked.has(key)) asked.set(key, ready({ engine: member.engine, args: member.args, cwd }));
      const refusal = await asked.get(key);
      return refusal && { ...refusal, error: `${member.label}: ${refusal.error}` };
    }),
  );
  return answers.find((answer) => answer !== undefined);
}

/**
 * How long a resumed engine is waited for, once it joined, to watch its new mailbox: Claude Code
 * sets its watch from its join's answer (the SessionStart hook's watchPaths) after the join: its
 * inbox about 3 s, its doorbell about 4 s after it started (Claude Code 2.1.332, measured).
 */
const WATCH_WAIT_MS = 15_000;

/** Where whether it watches cannot be read (no /proc: not Linux): the fixed grace, as before. */
const WATCH_GRACE_MS = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Bring the mail that waited for a member while it was down to the id it came back under (a
 * resumed Claude Code's is new). Forwarded before its engine watches that mailbox, the delivery's
 * ring goes unseen and the mail waits for its next prompt instead of waking it (a real Claude Code
 * in team-up-three.test.ts): so only once its engine (`engine`, the member's process) watches its
 * inbox and doorbell folders (inotify, by inode), up to `waitMs`, then anyway; where that cannot
 * be read, after a fixed grace.
 */
export async function forwardWaiting(
  effects: Pick<TeamEffects, "roster">,
  from: { id: string; label: string },
  to: string,
  engine: { pid: number },
  options: { waitMs?: number } = {},
) {
  if (from.id === to) return;
  const waiting = await effects.roster.receive(from.id);
  if (!waiting.ok || waiting.messages.length === 0) return;
  const folders = [effects.roster.inboxFolder(to), effects.roster.doorbell(to)?.folder];
  const inodes = folders.flatMap((folder) => {
    try {
      return folder ? [statSync(folder).ino] : [];
    } catch {
      return [];
    }
  });
  const deadline = Date.now() + (options.waitMs ?? WATCH_WAIT_MS);
  for (;;) {
    const watched = inotifyWatches(engine.pid);
    if (watched === undefined || inodes.length === 0) {
      await sleep(WATCH_GRACE_MS);
      break;
    }
    if (inodes.every((inode) => watched.has(inode)) || Date.now() >= deadline) break;
    await sleep(100);
  }
  await effects.roster.forwardMail(from, to);
}

const real = (folder: string) => {
  try {
    return realpathSync(folder);
  } catch {
    return undefined;
  }
};

/**
 * Where a member may start again from its spawn record (core's `resumePlace`): only folders of
 * this repository (`root` and the worktrees git lists), compared as real paths, so neither `..`
 * nor a link moves a member into another repository a planted record names.
 */
export async function recordedPlace(
  root: string,
  record: SpawnRecord | undefined,
): Promise<{ worktree?: { path: string; branch: string }; cwd?: string; note?: string }> {
  if (!record) return {};
  const listed = await worktrees(root);
  const entries = (listed.length > 0 ? listed : [{ path: root, branch: undefined }]).map(
    (entry) => ({ ...entry, path: real(entry.path) ?? entry.path }),
  );
  const worktree = record.worktree && {
    path: real(record.worktree.path) ?? record.worktree.path,
    branch: record.worktree.branch,
  };
  const place = resumePlace(entries, { cwd: real(record.cwd), worktree });
  return { ...place, ...(place.worktree ? { worktree: record.worktree } : {}) };
}
