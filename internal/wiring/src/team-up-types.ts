// The declared team's entry points as every door calls them (`muster up`, `muster down`, the
// dashboard's `u` and `x`): what is asked, with which effects, and what each member came to.
// The code is team-up.ts and team-down.ts; a door renders these values and decides no rule.
import type { Roster } from "@muster/roster";
import type { ServerTarget, TmuxRunner } from "@muster/tmux";
import type { SpawnCaller, SpawnFailure } from "./spawn.ts";
import type { SpawnProgress } from "./spawn-wait.ts";

export type TeamUpRequest = {
  /** The declared members to bring up (default: all of them). */
  labels?: readonly string[] | undefined;
  /** New engine sessions, never a resume. */
  fresh?: boolean | undefined;
  /**
   * Beside the caller, as `spawn` opens a pane (`--here`); default: the team's own window on the
   * target server (started, with a session named for the team, when no server runs).
   */
  here?: SpawnCaller | undefined;
  /** The repository folder the command runs in (muster.toml is read from its main checkout). */
  cwd: string;
  /** How long each member is waited for until it is on the roster. */
  timeoutMs: number;
};

export type TeamEffects = {
  roster: Roster;
  /** The team folder: spawn records (with each member's engine session) live in `spawned/`. */
  teamDir: string;
  run: TmuxRunner;
  /** The server the team's window is on (-L/-S, else $TMUX's, else tmux's default). */
  target: ServerTarget;
  /** The caller's environment: mail settings, the engines' homes (where their sessions are). */
  env?: NodeJS.ProcessEnv | undefined;
  /** Processes discovery leaves out (the caller's own). */
  exclude?: readonly number[] | undefined;
  /**
   * Whether an engine can work here (installed, set up for muster, a model it may use), asked
   * before anything opens for each engine `up` would start: a refusal ends the `up` at once.
   */
  ready?:
    | ((member: {
        engine: string;
        args: readonly string[];
        cwd: string;
      }) => Promise<SpawnFailure | undefined>)
    | undefined;
  /** Each member's spawn steps, for a door to show. */
  progress?: ((label: string, step: SpawnProgress) => void) | undefined;
};

/** What `up` did for one member. */
export type MemberUp = {
  label: string;
  engine: string;
  /**
   * `live`: it was already up, left alone. `resumed`: back in its recorded engine session.
   * `fresh`: started new (no session recorded, `--fresh`, or the session is gone: `note` says).
   * `racing`: another `up` or spawn is starting it now. `failed`: `error` says why.
   */
  outcome: "live" | "resumed" | "fresh" | "racing" | "failed";
  /** Its engine session (pi's and Claude Code's from the start, Codex's thread once it has one). */
  session?: string | undefined;
  pane?: string | undefined;
  /** Its member id on the team, once it joined. */
  id?: string | undefined;
  note?: string | undefined;
  error?: string | undefined;
  fix?: string | undefined;
};

export type TeamUp =
  | {
      ok: true;
      members: MemberUp[];
      /** Where they opened: the team's window (absent with `here`). */
      window?: { session: string; window: string; name: string; started: boolean } | undefined;
    }
  | SpawnFailure;

export type TeamDownRequest = {
  /** The members to take down (default: every declared member muster started). */
  labels?: readonly string[] | undefined;
  cwd: string;
};

/** What `down` did for one member, and what it kept for the next `up`. */
export type MemberDown = {
  label: string;
  /** `down`: asked to quit, pane closed. `not-running`: nothing to take down. `not-ours`: its pane is no longer the one muster opened (left alone). */
  outcome: "down" | "not-running" | "not-ours";
  /** It quit on its engine's own quit signal (else closing the pane ended it). */
  quit?: boolean | undefined;
  /** Kept for the next `up` (its cards and mail are never touched): its engine session, worktree. */
  kept: { session?: string | undefined; worktree?: string | undefined };
  note?: string | undefined;
};

export type TeamDown =
  | {
      ok: true;
      members: MemberDown[];
      /** Its Codex members' app-server daemon: ended (none of that home left) or kept, and why. */
      daemon?: { pids: number[]; ended: boolean; note: string } | undefined;
    }
  | SpawnFailure;
