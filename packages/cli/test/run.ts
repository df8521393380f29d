// The built `muster` binary as a child process, for the boundary tests: a scratch HOME, no TMUX,
// and (unless the arguments pick a server) a tmux server that does not exist.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processStart } from "@muster/node";
import { tmuxEnv } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { addCard, changeCard, setLead, teamBoard } from "@muster/wiring";
import { expect } from "vitest";

export const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
export const NOWHERE = ["-L", "muster-test-000000000000"];
export const ESC = "\u001b";
export const BEL = "\u0007";
/** What an attacker writes: a clipboard write, a title, a clear screen, an 8-bit CSI, an RLO. */
export const HOSTILE = `${ESC}]52;c;cm0gLXJmIH4=${BEL}${ESC}]0;pwned${BEL}${ESC}[2J\u009b31m\u202Egnp.exe`;
/** Any byte a terminal acts on (tab and newline aside, which bodies and tables legitimately hold). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these bytes
export const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export type Run = { status: number | null; stdout: string; stderr: string };
/** A run of the kit's `muster`, and how long it took. */
export type TimedRun = Run & { ms: number };
type Options = {
  env?: Record<string, string | undefined>;
  /** Where the command runs (default: the scratch folder). */
  cwd?: string;
  input?: string;
  /** Where stdout goes: a pipe (read back), or a file descriptor such as /dev/full's. */
  stdout?: number;
  /**
   * Without root's capabilities, so file modes bind muster as they bind any user (a mode-000 file
   * is unreadable to it). Uses `setpriv` when the tests run as root.
   */
  unprivileged?: boolean;
  /** Kill it (status null) if it has not finished by then: for a test that it does not hang. */
  timeoutMs?: number;
  /** The command line word for word, without NOWHERE's socket (an engine's hook runs it so). */
  exact?: boolean;
};

/** The command line that starts the CLI, stripped of root's capabilities where asked and needed. */
function command(unprivileged: boolean | undefined): [string, string[]] {
  if (!unprivileged || process.getuid?.() !== 0) return [process.execPath, [MUSTER]];
  return ["setpriv", ["--bounding-set=-all", "--inh-caps=-all", process.execPath, MUSTER]];
}

/** How a member joined by `joinedTeam` takes mail: as `muster join`, `--wake`, `--no-listen`. */
const MAIL = {
  quiet: { armed: true, wake: false },
  wakes: { armed: true, wake: true },
  off: { armed: false, wake: false },
} as const;

/**
 * Members on the team in `dir`, joined in this process instead of a `muster join` start each, and
 * recorded as that join records them from a test: the agent is this Node process (no engine, so
 * no activity is guessed), live while the test runs. `members`: label → id, or → id and mail mode
 * (default quiet).
 */
export async function joinedTeam(
  dir: string,
  members: Record<string, string | { id: string; mail: keyof typeof MAIL }>,
): Promise<void> {
  const roster = await openTestTeam(dir);
  const me = { pid: process.pid, pidStart: processStart(process.pid), cwd: process.cwd() };
  for (const [label, member] of Object.entries(members)) {
    const { id, mail } =
      typeof member === "string" ? { id: member, mail: "quiet" as const } : member;
    const joined = await roster.join({
      ...me,
      id,
      label,
      agent: "node",
      watching: MAIL[mail],
      liveness: "process",
    });
    if (!joined.ok) throw new Error(joined.error);
  }
}

/**
 * Cards on the team in `dir`, added in this process instead of a `muster board add` start each, by
 * `by` (a member already joined, as with `joinedTeam`): each a title, or a title and the cards it
 * waits on, and `claimed` when `by` claims it at once. `lead`: the board's lead, set by `by`.
 */
export async function boardWith(
  dir: string,
  by: { label: string; id: string },
  cards: (string | { title: string; after?: string[]; claimed?: true })[],
  lead?: string,
): Promise<void> {
  const team = teamBoard(await openTestTeam(dir));
  if (lead !== undefined) {
    const set = await setLead(team, by, lead);
    if (!set.ok) throw new Error(set.error);
  }
  for (const card of cards) {
    const { title, after, claimed } = typeof card === "string" ? { title: card } : card;
    const added = await addCard(team, by, { title, ...(after ? { deps: after } : {}) });
    if (!added.ok) throw new Error(added.error);
    if (!claimed) continue;
    const claim = await changeCard(team, by, { kind: "claim", card: added.decision.card.id });
    if (!claim.ok) throw new Error(claim.error);
  }
}

/**
 * A scratch folder, a fresh team folder in it per call of `newTeam`, `muster(args)`, and `close()`
 * (after all: ends what still runs, removes the folder).
 */
export function musterKit(prefix: string) {
  const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  const running = new Set<ChildProcess>();
  let teams = 0;
  const newTeam = () => {
    teams += 1;
    return path.join(scratch, `team-${teams}`);
  };
  const close = () => {
    for (const child of running) child.kill("SIGKILL");
    rmSync(scratch, { recursive: true, force: true });
  };
  const muster = (args: string[], options: Options = {}): Promise<TimedRun> => {
    const chooses = options.exact || args.includes("-L") || args.includes("-S");
    const started = Date.now();
    return new Promise((resolve) => {
      const [file, start] = command(options.unprivileged);
      const child = spawn(file, [...start, ...args, ...(chooses ? [] : NOWHERE)], {
        cwd: options.cwd ?? scratch,
        env: tmuxEnv({ HOME: scratch, ...options.env }),
        stdio: ["pipe", options.stdout ?? "pipe", "pipe"],
        ...(options.timeoutMs
          ? { timeout: options.timeoutMs, killSignal: "SIGKILL" as const }
          : {}),
      });
      running.add(child);
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (chunk) => {
        stdout += chunk;
      });
      child.stderr?.on("data", (chunk) => {
        stderr += chunk;
      });
      child.stdin?.end(options.input ?? "");
      child.once("close", (status) => {
        running.delete(child);
        resolve({ status, stdout, stderr, ms: Date.now() - started });
      });
    });
  };
  return { scratch, newTeam, muster, close };
}

/** Neither stream carries a raw control byte. */
export function expectClean(run: Run) {
  expect(run.stdout).not.toMatch(RAW);
  expect(run.stderr).not.toMatch(RAW);
}
