// What a store gives the conformance suite: a fresh team on it, rosters opened on that team with
// the effects a test chooses (its clock, its process facts, its policy), a way to write a raw
// value as another process would, and how a child process opens the same team.
import type { ProcessFacts, Roster, RosterPolicy, StoreSpace } from "@muster/roster";

export type TeamEffects = {
  /** The test's clock (ms); it starts at the real time and moves on as the test says. */
  clock: () => number;
  processes: ProcessFacts;
  policy?: Partial<RosterPolicy> | undefined;
};

export type ConformanceTeam = {
  /** A roster on this team's store, with these effects: every call reaches the same store. */
  open(effects: TeamEffects): Promise<Roster>;
  /** Write a raw value where the roster reads it, as a newer (or hostile) muster would. */
  plant(space: StoreSpace, key: string, text: string): Promise<void>;
  /** Put a raw entry among a member's unread mail. */
  plantMail(member: string, id: string, text: string): Promise<void>;
  /**
   * How a child process opens a roster on this team: `node <worker> <module> <config> …`, where
   * `module` exports `openConformanceRoster(config)` (real clock, real process facts).
   */
  worker: { module: string; config: string };
  /** Everything this team made, removed (its folder, its bucket and stream). */
  close(): Promise<void>;
};

export type ConformanceHarness = {
  /** The store's name, for the test titles: `folder`, `nats`. */
  name: string;
  newTeam(): Promise<ConformanceTeam>;
};

/** What a harness's worker module exports. */
export type WorkerModule = { openConformanceRoster(config: string): Promise<Roster> };
