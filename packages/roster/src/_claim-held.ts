// The roster's own judge of a claim held by a process (`heldBy`): the one rule every door's
// claim of this kind is judged by (wake claims, listeners, spawns, the land queue).
import type { Team } from "./_team.js";

/** The parts of a claim this rule reads (a `Claim` of _claim-read.ts). */
type HeldClaim = { at: string; data?: Record<string, unknown> | undefined };

/** Free to take over (dead or expired), or held: a `ClaimVerdict` of _claim.ts. */
type HeldVerdict<Held> = { free: true; reason: "dead" | "expired" } | { free: false; held: Held };

/**
 * The roster's rule for a claim held by a process: free once the process it names is proven dead,
 * or, with `maxAgeMs`, once the claim is further than that from `now` either way.
 */
export async function judgeHeldClaim<Held>(
  team: Team,
  current: HeldClaim,
  now: number,
  maxAgeMs: number | undefined,
): Promise<HeldVerdict<Held>> {
  const { pid, start } = current.data ?? {};
  if (Number.isInteger(pid) && typeof start === "string") {
    const fact = await team.processes.alive(pid as number, start);
    if (fact === "dead") return { free: true, reason: "dead" };
  }
  if (maxAgeMs !== undefined && Math.abs(now - Date.parse(current.at)) > maxAgeMs)
    return { free: true, reason: "expired" };
  return { free: false, held: current as Held };
}
