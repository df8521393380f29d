// A host's beater for a team on NATS: one process per host and team (held by a socket of the
// user's own, which answers while its beater lives), which every heartbeat interval beats this host's members kept live by
// their process while it runs, takes off the team those it proves dead, and exits when this host
// has none left. Another host judges these members by their heartbeat only, so without it a shell
// member on host B would go stale on host A while its shell lives. Which members: core's hostBeats.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  unlinkSync,
} from "node:fs";
import { createConnection, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { hostBeats } from "@muster/core/internal";
import { processFacts, stateRoot } from "@muster/node";
import type { Roster } from "@muster/roster";

export type BeaterLock = { ok: true; release(): Promise<void> } | { ok: false; reason: "held" };

/**
 * The lock's name for the team on this host: its store (where it lives: two NATS servers may each
 * hold a team of one name) and this host's place, hashed.
 */
export function beaterLockName(
  store: Pick<Roster["store"], "kind" | "where" | "address">,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const digest = createHash("sha256")
    .update(`${store.kind}\0${store.address ?? store.where}\0${processFacts.place() ?? ""}`)
    .digest("hex")
    .slice(0, 24);
  // A socket file in a folder of the user's own, 0700: no other local user can listen on it
  // first (an abstract socket's name anyone can compute and take: then no beater ran here).
  const file = `${digest}.sock`;
  const folder = path.join(stateRoot(env), "beaters");
  // A socket's path is at most 107 bytes. Past it, the same folder reached by a short path: its
  // open descriptor under /proc/self/fd (Linux). Never a name in the shared temp folder, which
  // another local user can make first (then no beater ran: members looked dead to other hosts).
  if (Buffer.byteLength(path.join(folder, file)) <= 100) return path.join(ownFolder(folder), file);
  if (existsSync("/proc/self/fd")) return path.join(folderByDescriptor(ownFolder(folder)), file);
  return path.join(
    ownFolder(path.join(tmpdir(), `muster-beaters-${process.getuid?.() ?? 0}`)),
    file,
  );
}

/** Open folders by path, for the process's life: a short path to each (`/proc/self/fd/N`). */
const openFolders = new Map<string, number>();

/** `/proc/self/fd/N` for `folder` (checked by `ownFolder`), opened once, never through a link. */
function folderByDescriptor(folder: string): string {
  let descriptor = openFolders.get(folder);
  if (descriptor === undefined) {
    descriptor = openSync(
      folder,
      constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW,
    );
    openFolders.set(folder, descriptor);
  }
  return `/proc/self/fd/${descriptor}`;
}

/** `folder`, made 0700 if missing; refused unless a folder (not a link) of this user's, 0700. */
function ownFolder(folder: string): string {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const facts = lstatSync(folder);
  const uid = process.getuid?.();
  if (!facts.isDirectory() || (uid !== undefined && facts.uid !== uid))
    throw Object.assign(new Error(`${folder} is not a folder of this user's: remove it`), {
      code: "EPERM",
    });
  if ((facts.mode & 0o077) !== 0) chmodSync(folder, 0o700);
  return folder;
}

const listen = (name: string) =>
  new Promise<Server | undefined>((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once("error", (error: NodeJS.ErrnoException) =>
      error.code === "EADDRINUSE" ? resolve(undefined) : reject(error),
    );
    server.listen(name, () => resolve(server));
  });

/** Whether a socket file still has a listener (a file left by a beater that died has none). */
const answers = (name: string) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection(name);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

/** Hold the beater's lock, or learn that another process holds it. */
export async function holdBeaterLock(name: string): Promise<BeaterLock> {
  let server = await listen(name);
  if (!server && !(await answers(name))) {
    unlinkSync(name);
    server = await listen(name);
  }
  if (!server) return { ok: false, reason: "held" };
  const held = server;
  held.unref();
  return {
    ok: true,
    release: () => new Promise<void>((resolve) => held.close(() => resolve())),
  };
}

export type BeatRound = { beaten: string[]; left: string[]; any: boolean; unreadable?: true };

/** What a beater uses of the roster. */
export type BeatenRoster = Pick<Roster, "read" | "heartbeat" | "leave" | "policy">;

/**
 * One round: read the team as this host judges it, beat and take off as hostBeats says. A team
 * that cannot be read (its server down) may still have members here: the beater keeps going.
 */
export async function beatRound(roster: BeatenRoster): Promise<BeatRound> {
  const read = await roster.read();
  if (!read.ok) return { beaten: [], left: [], any: true, unreadable: true };
  const round = hostBeats(read.members);
  const beaten: string[] = [];
  const left: string[] = [];
  for (const id of round.beat) if ((await roster.heartbeat(id)).ok) beaten.push(id);
  for (const id of round.leave) {
    const gone = await roster.leave(id);
    if (gone.ok && gone.left) left.push(id);
  }
  return { beaten, left, any: round.any };
}

export type BeaterOptions = {
  roster: BeatenRoster;
  /** Between rounds (ms): the roster's heartbeat interval. */
  intervalMs: number;
  sleep: (ms: number) => Promise<void>;
  lockName: string;
  /** Told after each round. */
  onRound?: ((round: BeatRound) => void) | undefined;
  /** The clock (default Date.now). */
  now?: (() => number) | undefined;
};

export type BeaterEnd =
  | { ok: true; rounds: number; unreachable?: true }
  | { ok: false; reason: "held" };

/**
 * Run the beater until this host has no member left to beat. On its way out it lets the lock go
 * and looks once more: a member that joined meanwhile (whose own beater found the lock held) is
 * seen, and the lock taken again. A team that stays unreadable past the roster's TTL ends it too:
 * every member it could beat has expired by then on every host (a server gone for good otherwise
 * kept a beater, and the lock it holds, for ever).
 */
export async function runBeater(options: BeaterOptions): Promise<BeaterEnd> {
  const now = options.now ?? Date.now;
  let lock = await holdBeaterLock(options.lockName);
  if (!lock.ok) return lock;
  let rounds = 0;
  let unreadableSince: number | undefined;
  for (;;) {
    const round = await beatRound(options.roster);
    rounds += 1;
    options.onRound?.(round);
    unreadableSince = round.unreadable ? (unreadableSince ?? now()) : undefined;
    if (unreadableSince !== undefined && now() - unreadableSince > options.roster.policy.ttlMs) {
      await lock.release();
      return { ok: true, rounds, unreachable: true };
    }
    if (!round.any) {
      await lock.release();
      if (!(await beatRound(options.roster)).any) return { ok: true, rounds };
      lock = await holdBeaterLock(options.lockName);
      if (!lock.ok) return { ok: true, rounds };
    }
    await options.sleep(options.intervalMs);
  }
}

/**
 * What every door calls once a member kept live by its process is on the team (`muster join`,
 * the MCP server's join of its caller, Claude Code's hook): on a team on NATS, this host's beater,
 * started unless one already answers on its lock. Its pid when one was started.
 */
export async function keepBeating(
  roster: Roster,
  where: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<number | undefined> {
  if (roster.store.kind === "folder") return undefined;
  if (await answers(beaterLockName(roster.store, where.env))) return undefined;
  return startBeater(roster, where);
}

/**
 * Start `muster beat` in the background for a team on NATS (where only heartbeats cross hosts),
 * unless this process is no muster (no script to run). A beater already running keeps the lock
 * and the new one exits at once.
 */
export function startBeater(roster: Roster, where: { cwd: string; env: NodeJS.ProcessEnv }) {
  if (roster.store.kind === "folder") return undefined;
  const entry = process.argv[1];
  // Only the muster executable runs `beat` (not a test runner or an engine that loaded muster).
  if (!entry || !/^muster(\.js)?$/.test(path.basename(entry))) return undefined;
  const child = spawn(process.execPath, [entry, "beat"], {
    cwd: where.cwd,
    env: where.env,
    detached: true,
    stdio: "ignore",
  });
  child.unref();
  return child.pid;
}
