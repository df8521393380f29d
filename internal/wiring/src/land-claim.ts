// One land at a time per team: the roster's exclusive claim `lands/landing`, as cards are claimed.
// A second land waits its turn (a `lands/wait-<label>` claim says it waits, for status), or with
// `noWait` is told who is landing. A lander that died holding the claim (proven dead by pid and
// start time) frees it; `lands/last` keeps how the last land ended, for status.
import { randomBytes } from "node:crypto";
import { type LandOutcome, type LandQueue, type LandRefusal, landingRefusal } from "@muster/core";
import { processStart } from "@muster/node";
import type { Claim, Roster } from "@muster/roster";

/** A land holds the claim at most this long: a claim older than this names no running land. */
export const LAND_CLAIM_MS = 6 * 3_600_000;

export type LandClaim = { holder: string; release(): Promise<void> };

const text = (value: unknown) => (typeof value === "string" ? value : "");

/** Who holds the land claim, as a refusal names it. */
const holderOf = (claim: Claim | undefined) => ({
  label: text(claim?.data?.label) || "another land",
  member: text(claim?.data?.member) || "a member",
});

/**
 * Take the team's land claim for `lander` landing `member`'s work; while another land holds it,
 * wait (`progress` says who is landing, once per holder) or, with `noWait`, refuse.
 */
export async function claimLand(
  roster: Roster,
  who: { lander: string; member: string },
  options: {
    noWait?: boolean | undefined;
    progress?: ((line: string) => void) | undefined;
    pollMs?: number | undefined;
  },
): Promise<{ ok: true; claim: LandClaim } | LandRefusal> {
  const holder = `land-${process.pid}-${randomBytes(6).toString("hex")}`;
  const heldBy = { pid: process.pid, start: processStart(process.pid) };
  const data = { label: who.lander, member: who.member };
  let waiting = false;
  let told = "";
  try {
    for (;;) {
      const claimed = await roster.claim<Claim>({
        space: "lands",
        key: "landing",
        holder,
        data,
        heldBy,
        maxAgeMs: LAND_CLAIM_MS,
      });
      if (claimed.ok)
        return {
          ok: true,
          claim: {
            holder,
            release: () => roster.releaseClaim("lands", "landing", holder).then(() => undefined),
          },
        };
      const current =
        claimed.reason === "held" || claimed.reason === "busy" ? claimed.current : undefined;
      if (claimed.reason === "bad-key") throw new Error(claimed.error);
      if (options.noWait) return landingRefusal(holderOf(current));
      if (!waiting) {
        waiting = true;
        await roster.claim({
          space: "lands",
          key: `wait-${who.lander}`,
          holder,
          data,
          heldBy,
          maxAgeMs: LAND_CLAIM_MS,
        });
      }
      const line = `waiting to land: ${holderOf(current).label} is landing ${holderOf(current).member}'s work`;
      if (line !== told) {
        told = line;
        options.progress?.(line);
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
    }
  } finally {
    if (waiting)
      await roster.releaseClaim("lands", `wait-${who.lander}`, holder).catch(() => false);
  }
}

/** Keep how this land ended, for status (the previous result is replaced). */
export async function recordLast(
  roster: Roster,
  member: string,
  outcome: LandOutcome,
): Promise<void> {
  const holder = `land-${process.pid}-${randomBytes(6).toString("hex")}`;
  // The previous result is released first: only one land runs at a time (this one holds `landing`).
  const previous = await roster.readClaim("lands", "last").catch(() => undefined);
  if (previous && previous !== "unreadable")
    await roster.releaseClaim("lands", "last", previous.holder).catch(() => false);
  await roster
    .claim({
      space: "lands",
      key: "last",
      holder,
      data: {
        member,
        result: outcome.result,
        ...(outcome.result === "landed" ? { commit: outcome.commit } : {}),
      },
      heldBy: { pid: process.pid, start: processStart(process.pid) },
    })
    .catch(() => undefined);
}

/**
 * The team's land queue: who lands, who waits (live claims only), how the last land ended. With
 * `waitingWhileLanding` the waiting are listed only while a land is under way (the status line
 * shows them only then): the lands space, which any member may fill, is not listed otherwise.
 */
export async function landQueue(
  roster: Roster,
  options: { waitingWhileLanding?: boolean } = {},
): Promise<LandQueue> {
  const read = async (key: string) => {
    const claim = await roster.readClaim("lands", key).catch(() => undefined);
    return claim && claim !== "unreadable" ? claim : undefined;
  };
  const landing = await read("landing");
  const alive = async (claim: Claim | undefined) =>
    claim !== undefined && (await roster.claimHolds(claim, { maxAgeMs: LAND_CLAIM_MS }));
  const last = await read("last");
  const waiting: string[] = [];
  const landingNow = await alive(landing);
  const listed =
    options.waitingWhileLanding && !landingNow
      ? []
      : await roster.listClaims("lands").catch(() => [] as Claim[]);
  for (const claim of listed) {
    if (claim.key.startsWith("wait-") && (await alive(claim)))
      waiting.push(claim.key.slice("wait-".length));
  }
  return {
    landing: landingNow ? holderOf(landing) : undefined,
    waiting,
    last: last
      ? {
          member: text(last.data?.member),
          result: text(last.data?.result) as LandOutcome["result"],
          commit: text(last.data?.commit) || undefined,
          at: last.at,
        }
      : undefined,
  };
}
