// Ending the Codex app-server daemon a spawned Codex started, once that Codex is stopped and no
// other Codex of its home is left to use it. Before the stop, the daemon is found below the pane's
// process (the reconciler's codexDaemonsBelow: ancestry proves this spawn's Codex started it);
// after, each one still running as the same process (pid and start time; a zombie has ended) is
// ended — unless another Codex TUI of the same Codex home runs (its environment says which home:
// read from /proc), or that cannot be known (a Codex not proven ended is a user); then it stays,
// and the line says why. A daemon the
// spawned Codex found running (another Codex of its home started it, not muster) is never ended:
// stop says it stays.
import { readFileSync } from "node:fs";
import path from "node:path";
import { type ProcessRow, processAlive, readProcessTable } from "@muster/node";
import {
  BUILTIN_ENGINES,
  type CodexDaemon,
  codexDaemonHome,
  codexDaemonsBelow,
  matchEngine,
} from "@muster/reconciler";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether a process still runs as the one found (pid and start time). One that exited and waits to
 * be reaped (a zombie: pid 1 here reaps every ~2 s, later under load) runs nothing: it has ended.
 */
const stillRuns = (found: { pid: number; start: string }) =>
  processAlive(found.pid, found.start) === "alive";

/**
 * The Codex app-server processes below a spawned pane's process (the ones its Codex started), and
 * every process of that pane's tree: a Codex of the tree still exiting after the stop is no user.
 */
export async function codexDaemonsStartedBy(
  pid: number,
): Promise<{ daemons: CodexDaemon[]; tree: number[] }> {
  const table = await readProcessTable();
  if (!table.ok) return { daemons: [], tree: [] };
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of table.processes)
      if (tree.has(row.ppid) && !tree.has(row.pid)) {
        tree.add(row.pid);
        grew = true;
      }
  }
  return { daemons: codexDaemonsBelow(table.processes, pid), tree: [...tree] };
}

/**
 * The app-server daemons serving the Codex home that process `pid` (a spawned Codex) runs with,
 * but those in `known` (started by its spawn, or kept by an earlier stop): ones muster did not
 * start — a Codex the person started first did, and it serves theirs too. Empty where the home or
 * the process table cannot be read.
 */
export async function codexDaemonsNotStarted(
  pid: number,
  known: readonly CodexDaemon[],
): Promise<CodexDaemon[]> {
  const home = codexHomeOf(pid);
  const table = home === undefined ? undefined : await readProcessTable();
  if (!home || !table?.ok) return [];
  return table.processes.flatMap((row) => {
    const codexHome = codexDaemonHome(row);
    const ours = codexHome !== undefined && path.resolve(codexHome) === path.resolve(home);
    return ours && !known.some((daemon) => daemon.pid === row.pid)
      ? [{ pid: row.pid, start: row.start, codexHome }]
      : [];
  });
}

/**
 * What a Codex member's end may settle, found before it is ended: the daemons its Codex started
 * (below its pane's process until it exits, then pid 1's) with those an earlier stop or down kept
 * for another Codex (`kept`, proven by pid and start later), the pane's process tree, and the
 * daemons its Codex (`asked`, the engine's pid) found running: not muster's (none where it started
 * one). Nothing for another engine.
 */
export async function codexDaemonsOf(
  record: { engine: string; pid: number },
  asked: number,
  kept: readonly CodexDaemon[],
): Promise<DaemonsFound> {
  if (record.engine !== "codex") return { daemons: [], tree: [], foreign: [] };
  const started = await codexDaemonsStartedBy(record.pid);
  const daemons = [...started.daemons, ...kept];
  const foreign = started.daemons.length === 0 ? await codexDaemonsNotStarted(asked, daemons) : [];
  return { daemons, tree: started.tree, foreign };
}

/** `codexDaemonsOf`'s answer: the daemons to settle, the member's processes, those not muster's. */
export type DaemonsFound = { daemons: CodexDaemon[]; tree: number[]; foreign: CodexDaemon[] };

/**
 * Once the members found are ended (one for `stop`, each Codex of a `down`): their daemons ended
 * where no other Codex of the home is left (`settleCodexDaemons`), else what stays and why; where
 * none was muster's, those their Codex found running stay (`notStartedOutcome`).
 */
export async function settleDaemonsFound(
  found: readonly DaemonsFound[],
): Promise<DaemonOutcome | undefined> {
  const settled = await settleCodexDaemons(
    found.flatMap((each) => each.daemons),
    found.flatMap((each) => each.tree),
  );
  return settled ?? notStartedOutcome(found.flatMap((each) => each.foreign));
}

/** What stop says of daemons muster did not start (`codexDaemonsNotStarted`) still running. */
export function notStartedOutcome(daemons: readonly CodexDaemon[]): DaemonOutcome | undefined {
  const running = daemons.filter((daemon) => stillRuns(daemon));
  if (running.length === 0) return undefined;
  const pids = running.map((daemon) => daemon.pid);
  return {
    pids,
    ended: false,
    line: `its Codex used the app-server daemon of ${running[0]!.codexHome} (pid ${pids.join(", ")}), which muster did not start: it stays, serving the Codex sessions started there without muster`,
    kept: [],
  };
}

/** The Codex home a process runs with ($CODEX_HOME, else $HOME/.codex); undefined: unreadable. */
function codexHomeOf(pid: number): string | undefined {
  try {
    const env = new Map(
      readFileSync(`/proc/${pid}/environ`, "utf8")
        .split("\0")
        .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
    );
    const home =
      env.get("CODEX_HOME") || (env.get("HOME") && path.join(env.get("HOME")!, ".codex"));
    return home || undefined;
  } catch {
    return undefined;
  }
}

/** What became of the daemons: ended, or kept with the reason, in one line (and which were kept). */
export type DaemonOutcome = { pids: number[]; ended: boolean; line: string; kept: CodexDaemon[] };

/**
 * End `daemons` (found before the stop, or kept by an earlier stop) that still run as the same
 * processes, where no other Codex of their home runs; undefined when none is left running.
 */
export async function settleCodexDaemons(
  daemons: readonly CodexDaemon[],
  /** The stopped member's own processes: none of them is another user. */
  exclude: readonly number[] = [],
): Promise<DaemonOutcome | undefined> {
  const homes = new Map<string, CodexDaemon[]>();
  for (const daemon of await provenDaemons(daemons)) {
    const same = homes.get(daemon.codexHome) ?? [];
    if (!same.some((known) => known.pid === daemon.pid)) same.push(daemon);
    homes.set(daemon.codexHome, same);
  }
  const outcomes = [];
  for (const group of homes.values()) {
    const outcome = await settleHome(group, exclude);
    if (outcome) outcomes.push(outcome);
  }
  if (outcomes.length === 0) return undefined;
  return {
    pids: outcomes.flatMap((outcome) => outcome.pids),
    ended: outcomes.every((outcome) => outcome.ended),
    line: outcomes.map((outcome) => outcome.line).join("; "),
    kept: outcomes.flatMap((outcome) => outcome.kept),
  };
}

/**
 * The daemons that are what they say (a kept one is read from a file any process of the user can
 * write): each one still running is, by pid and start time, a Codex app-server of its home in the
 * process table now. One that has ended stays (it is never signalled); any other is left out, and
 * all that run are where the table cannot be read.
 */
async function provenDaemons(daemons: readonly CodexDaemon[]): Promise<CodexDaemon[]> {
  const running = daemons.filter((daemon) => stillRuns(daemon));
  if (running.length === 0) return [...daemons];
  const table = await readProcessTable();
  const proven = (daemon: CodexDaemon) =>
    table.ok &&
    table.processes.some((row) => {
      if (row.pid !== daemon.pid || row.start !== daemon.start) return false;
      const home = codexDaemonHome(row);
      return home !== undefined && path.resolve(home) === path.resolve(daemon.codexHome);
    });
  return daemons.filter((daemon) => !running.includes(daemon) || proven(daemon));
}

/** The daemons of one Codex home: ended together, or kept together. */
async function settleHome(
  daemons: readonly CodexDaemon[],
  exclude: readonly number[],
): Promise<DaemonOutcome | undefined> {
  const running = daemons.filter((daemon) => stillRuns(daemon));
  if (running.length === 0) return undefined;
  const pids = running.map((daemon) => daemon.pid);
  const home = running[0]!.codexHome;
  const named = `its Codex app-server daemon (pid ${pids.join(", ")})`;
  // A Codex of that home that is only exiting (an earlier stop's, still ending) is no user: it is
  // looked for again for up to 3 s before the daemon is judged kept.
  let users = await codexUsers(home, exclude);
  for (let waited = 0; users && users.length > 0 && waited < 3000; waited += 200) {
    await sleep(200);
    users = await codexUsers(home, exclude);
  }
  if (!users)
    return {
      pids,
      ended: false,
      line: `${named} stays: the process table cannot be read`,
      kept: running,
    };
  if (users.length > 0)
    return {
      pids,
      ended: false,
      line: `${named} stays: another Codex of ${home} (pid ${users[0]!.pid}) may use it; it serves every Codex there, and the stop of the last member muster spawned there ends it`,
      kept: running,
    };
  for (const daemon of running)
    if (stillRuns(daemon))
      try {
        process.kill(daemon.pid, "SIGTERM");
      } catch {
        // gone meanwhile
      }
  await endedWithin(running, 3000);
  // Still the same process past its SIGTERM (a loaded machine): ended by SIGKILL, proven ours.
  for (const daemon of running)
    if (stillRuns(daemon))
      try {
        process.kill(daemon.pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
  await endedWithin(running, 1000);
  const left = running.filter((daemon) => stillRuns(daemon));
  return left.length === 0
    ? { pids, ended: true, line: `${named} ended: no other Codex of ${home} runs`, kept: [] }
    : {
        pids,
        ended: false,
        line: `${named} did not end after SIGTERM and SIGKILL; end it with kill -9 ${left.map((daemon) => daemon.pid).join(" ")}`,
        kept: [],
      };
}

/** The Codex processes (not daemons) of `home` but those excluded; undefined: no process table. */
async function codexUsers(home: string, exclude: readonly number[]) {
  const table = await readProcessTable();
  return table.ok ? codexUsersIn(table.processes, home, exclude) : undefined;
}

/**
 * The rows that are Codex processes (not daemons) of `home`, but those excluded. Only a Codex
 * proven ended (`alive` says dead: gone, its pid reused, a zombie with no environment left) uses
 * nothing; one whose liveness cannot be decided counts as a user, so its daemon stays.
 */
export function codexUsersIn(
  rows: readonly ProcessRow[],
  home: string,
  exclude: readonly number[],
  alive: typeof processAlive = processAlive,
): ProcessRow[] {
  return rows.filter((row) => {
    if (exclude.includes(row.pid)) return false;
    if (matchEngine(row, BUILTIN_ENGINES) !== "codex" || codexDaemonHome(row)) return false;
    if (alive(row.pid, row.start) === "dead") return false;
    const of = codexHomeOf(row.pid);
    return of === undefined || path.resolve(of) === path.resolve(home);
  });
}

/** Wait up to `ms` for every daemon to be gone (its pid no longer that process). */
async function endedWithin(daemons: readonly CodexDaemon[], ms: number) {
  for (let waited = 0; waited < ms; waited += 100) {
    if (daemons.every((daemon) => !stillRuns(daemon))) return;
    await sleep(100);
  }
}
