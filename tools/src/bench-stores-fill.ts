// The stores benchmark's team before any figure (tools/bench/stores.ts): 1,000 members and 1,000
// leases, on either store, in well under a minute. Setup, not a figure: it is never timed.
import { performance } from "node:perf_hooks";
import type { LeaseHolds, Roster } from "@muster/roster";

export const MEMBERS = 1000;

/** A member as the benchmark joins it: this process, heartbeat liveness. */
export const member = (id: string, label: string) => ({
  id,
  label,
  agent: "bench",
  pid: process.pid,
  watching: { armed: true, wake: false },
  liveness: "heartbeat" as const,
});

/** A lease holds while it is in time and its holder is neither gone nor absent. */
export const holds: LeaseHolds = (lease, now) =>
  now < lease.expiresAt && !["dead", "expired", "absent"].includes(lease.holderState);

/**
 * 1,000 members and 1,000 leases, spread over `fillers` (on NATS each with a key of its own) as
 * a team's members are over its people's keys: NATS reads at most 64 records a key, so one key's
 * 1,000 would be read as 64. Each filler first joins a holder of its own, which takes its share of
 * the leases, then the other members join, one after another. Why in this order: a take reads
 * every member and every lease under the team's lease lock, so 1,000 takes after 1,000 joins
 * read a million records; taken while only the holders are joined, a tenth of that. And joins at
 * once (20 fillers) were slower than one after another: each NATS label check lists the records,
 * once per filler, and the fillers' listings crowded out the joins (a fill of over 20 minutes).
 */
export async function fill(name: string, fillers: readonly Roster[]): Promise<void> {
  const started = performance.now();
  const share = Math.ceil(MEMBERS / fillers.length);
  for (const [index, roster] of fillers.entries()) {
    const joined = await roster.join(member(`holder${index}`, `holder-${index}`));
    if (!joined.ok) throw new Error(`${name}: holder${index}'s join: ${joined.error}`);
  }
  for (let index = 0; index < MEMBERS; index += 1) {
    const holder = Math.floor(index / share);
    const taken = await fillers[holder]!.takeLease(
      {
        holderId: `holder${holder}`,
        holder: `holder-${holder}`,
        pattern: `src/area-${index}/**`,
        mode: "exclusive",
        ttlMs: 60 * 60_000,
      },
      holds,
      () => ({ ok: true }),
    );
    if (!taken.ok)
      throw new Error(`${name}: lease ${index}: ${JSON.stringify(taken).slice(0, 300)}`);
  }
  // The holders are members too: the rest make 1,000.
  for (let index = fillers.length; index < MEMBERS; index += 1) {
    const joined = await fillers[Math.floor(index / share)]!.join(
      member(`m${index}`, `member-${index}`),
    );
    if (!joined.ok) throw new Error(`${name}: m${index}'s join: ${joined.error}`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.error(`bench: stores: the ${name} team filled in ${seconds} s`);
}
