// What a spawn is asked, by whom, with which effects, and what it answers: the types every door and
// the spawn's own steps (spawn.ts, spawn-open.ts) share. No code.
import type { MailMode } from "@muster/core/internal";
import type { FoundAgent, Launch } from "@muster/reconciler";
import type { Roster } from "@muster/roster";
import type { Seat, SpawnRecord, TmuxRunner } from "@muster/tmux";
import type { SpawnTrouble } from "./spawn-look.ts";
import type { SpawnProgress, SpawnSeen, SpawnState } from "./spawn-wait.ts";

export type SpawnRequest = {
  engine: string;
  label?: string | undefined;
  task?: string | undefined;
  /** A new window after the caller's instead of a split of its pane. */
  window?: boolean | undefined;
  /** Where it starts: an absolute folder (default: the caller's working directory). */
  cwd: string;
  /** Start it in a new git worktree beside the repository, on this branch (or muster/<label>). */
  worktree?: { branch?: string | undefined } | undefined;
  timeoutMs: number;
  extra?: readonly string[] | undefined;
  command?: readonly string[] | undefined;
  /** Its mail does not wake it (default: it wakes for its mail, unless the shell's MUSTER_MAIL says otherwise). */
  quiet?: boolean | undefined;
  /**
   * Its engine session: resumed (`muster up`), or a fresh one under this id. Default: a fresh one
   * muster names where the engine lets it (pi, Claude Code), recorded for `muster up`.
   */
  session?: { id: string; resume: boolean } | undefined;
  /** A worktree it had before (`muster up`): started there as it is, never reset or re-created. */
  keptWorktree?: { path: string; branch: string } | undefined;
};

/** Who asks: its seat (proven, or why there is none) and its id on the team (the task's sender). */
export type SpawnCaller = {
  seat: { ok: true; seat: Seat } | { ok: false; reason: string; error: string; fix?: string };
  /** The member id the task is mailed from; a caller that is not a member sends as a guest. */
  id: string;
  /** The caller's pid: its label is the member's with that pid when `id` names none. */
  pid?: number | undefined;
};

export type SpawnEffects = {
  roster: Roster;
  /** The team folder: the spawn records live in its `spawned/`. */
  teamDir: string;
  run: TmuxRunner;
  /** Processes discovery leaves out (the caller's own). */
  exclude?: readonly number[] | undefined;
  /**
   * Whether the engine is set up to join the team (its MCP entry, its extension), asked before
   * anything is claimed or opened: a refusal here ends the spawn at once, with its fix.
   */
  ready?:
    | ((launch: Launch, request: SpawnRequest) => Promise<SpawnFailure | undefined>)
    | undefined;
  /** Each step of the wait, and every few seconds that it still waits, for a door to show. */
  progress?: ((step: SpawnProgress) => void) | undefined;
  /**
   * The spawning shell's environment: its mail settings reach the pane (core's spawnedMail), and
   * the engine's own state is read with it (Claude Code's registry); default process.env.
   */
  env?: NodeJS.ProcessEnv | undefined;
};

export type Spawned = {
  ok: true;
  record: SpawnRecord;
  state: SpawnState;
  /** The engine's process, once discovery found it; else the process tmux started. */
  pid: number;
  session: string;
  sessionName: string;
  launch: Launch;
  task: { mailed: boolean; commandLine: boolean } | null;
  /** How mail reaches it: the mode its pane was started with. */
  mail: MailMode;
  /** Milliseconds from the start: pane opened, engine found, on the roster, done. */
  timings: Record<string, number>;
  warnings: string[];
  /** The engine's process as discovery found it, to adopt as verified. */
  agent: FoundAgent | undefined;
  /** When the time limit ended the wait before it joined: what the pane showed then. */
  seen?: SpawnSeen | undefined;
  /**
   * The engine cannot work, as its pane showed it (its own words that it cannot run a turn, or its
   * program ended at start): the spawn failed, whatever state it reached; the task is not mailed.
   */
  trouble?: SpawnTrouble | undefined;
};

/** A refused spawn: what happened and, apart, what to do (`errorLine` joins them). */
export type SpawnFailure = { ok: false; reason: string; error: string; fix?: string | undefined };
