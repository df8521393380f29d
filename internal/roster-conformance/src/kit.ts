// The suite's small kit: a fresh team on the harness's store with a clock the test moves and
// process facts the test decides, and the member a test joins.
import { ownerVerdict, releaseCard } from "@muster/core";
import type {
  BoardSnapshot,
  JoinInput,
  LeaseHolds,
  ProcessFact,
  Roster,
  RosterPolicy,
} from "@muster/roster";
import { afterEach } from "vitest";
import type { ConformanceHarness, ConformanceTeam } from "./harness.ts";

export type Kit = {
  team: ConformanceTeam;
  roster: Roster;
  /** Set what this host knows of a pid: alive, dead, or (the default) unknown. */
  facts: Map<number, ProcessFact>;
  advance(ms: number): void;
  now(): number;
  /**
   * Another roster on the same store (another process, as far as the rules go); with `place`, a
   * roster on another host (another boot or pid namespace): the test's rosters are on `here`.
   */
  open(policy?: Partial<RosterPolicy>, place?: string): Promise<Roster>;
};

/** `kit()` in a test: a new team, closed after the test. */
export function kits(harness: ConformanceHarness): () => Promise<Kit> {
  const open: ConformanceTeam[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((team) => team.close()));
  });
  return async () => {
    const team = await harness.newTeam();
    open.push(team);
    let now = Date.now();
    const facts = new Map<number, ProcessFact>();
    const effects = (policy?: Partial<RosterPolicy>, place = "here") => ({
      clock: () => now,
      processes: { alive: (pid: number) => facts.get(pid) ?? "unknown", place: () => place },
      policy,
    });
    return {
      team,
      roster: await team.open(effects()),
      facts,
      advance: (ms) => {
        now += ms;
      },
      now: () => now,
      open: (policy, place) => team.open(effects(policy, place)),
    };
  };
}

/** A member to join: a pi session with this pid (start time "1"), heartbeat-live by default. */
export const member = (
  id: string,
  label: string,
  pid: number,
  overrides: Partial<JoinInput> = {},
): JoinInput => ({
  id,
  label,
  agent: "pi",
  pid,
  pidStart: "1",
  watching: { armed: true, wake: false },
  liveness: "heartbeat",
  ...overrides,
});

/** Core's lease rule in plain words: its TTL, then its holder (unknown holds). */
export const leaseHolds: LeaseHolds = (lease, now) =>
  now < lease.expiresAt && !["dead", "expired", "absent"].includes(lease.holderState);

export const HOUR = 60 * 60_000;

/** Core's release of a card whose owner is proven gone, over the board as read (a reader's). */
export const release = (board: BoardSnapshot, id: string) => {
  const card = board.cards.get(id);
  const verdict = card ? ownerVerdict(card, board.members) : undefined;
  if (!card || !verdict || verdict.keep) return { ok: false as const };
  const released = releaseCard(card, verdict, board.lead, board.at).card;
  return { ok: true as const, changed: true, card: released };
};
