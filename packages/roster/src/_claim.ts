// The one exclusive claim: a key in a claim space (labels, board cards, path leases, wakes) held by
// one holder, over the store contract. A free key is taken by the store's exclusive create; a held
// one is taken over only when the caller's judge says its holder is dead or expired, re-judged
// under a fenced lock, and committed by the store's compare-and-swap; a claim is released or
// pruned only by compare-and-delete.
import { judgeHeldClaim } from "./_claim-held.js";
import {
  type Claim,
  type ClaimEntry,
  claimKey,
  claimOf,
  notAClaim,
  parseClaim,
  readEntry,
  sameClaim,
} from "./_claim-read.js";
import type { ClaimSpace } from "./_layout.js";
import { claimLockKey, holdsLock, releaseLock, takeLock } from "./_lock.js";
import type { Stored } from "./_store.js";
import { iso, type Team } from "./_team.js";
import { uniqueName } from "./_unique.js";
import { validateId, validateKey } from "./_validate.js";

/** A claim with nothing behind it yet (its holder is still joining) is respected this long. */
export const CLAIM_GRACE_MS = 10_000;

/** What a judge says of the current holder: free to take over (and why), or held. */
export type ClaimVerdict<Held> =
  | { free: true; reason: "dead" | "expired" | "orphan" | "left" }
  | { free: false; held: Held };

/** The process a claim is held by: its pid and start time (`processStart`), as records name one. */
export type HeldBy = { pid: number; start: string | undefined };

export type ClaimRequest<Held> = {
  space: ClaimSpace;
  /** Validated by the caller: letters, digits, `.`, `_`, `-`. */
  key: string;
  holder: string;
  data?: Record<string, unknown> | undefined;
} & (
  | {
      /** May `current` be taken over? Asked first, and again under the lock before the commit. */
      judge: (current: Claim, now: number) => Promise<ClaimVerdict<Held>>;
      heldBy?: undefined;
      maxAgeMs?: undefined;
    }
  | {
      judge?: undefined;
      /**
       * The roster's own rule for a claim held by a process: free once the process the current
       * claim names is proven dead (the roster's process facts) or, with `maxAgeMs`, once the
       * claim is further than that from now either way (a clock that jumped counts as old).
       * `heldBy` is kept in the claim's data as `pid` and `start`.
       */
      heldBy: HeldBy;
      maxAgeMs?: number | undefined;
    }
);

export type Takeover = {
  /** The claim taken over; undefined when it did not parse (it went to quarantine/). */
  from: Claim | undefined;
  reason: "dead" | "expired" | "orphan" | "unreadable" | "left";
};

/**
 * A takeover that cleared the judged claim and then lost the key to a fresh creator in the moment
 * it was free (that creator is told, as its takeover). Handed back: a caller that wins the key on
 * a later round retires the judged holder too.
 */
export type Cleared = { cleared?: Takeover | undefined };

export type ClaimResult<Held> =
  | ({ ok: true; claim: Claim; took?: Takeover | undefined } & Cleared)
  | ({ ok: false; reason: "held"; held: Held; current: Claim } & Cleared)
  /** Another process is taking it over right now, or it changed hands while we looked. */
  | ({ ok: false; reason: "busy"; current: Claim | undefined } & Cleared)
  | { ok: false; reason: "bad-key"; error: string; fix?: string | undefined };

/** Claim `request.key` for `request.holder`; see the file header for how a takeover is fenced. */
export async function takeClaim<Held>(
  team: Team,
  request: ClaimRequest<Held>,
): Promise<ClaimResult<Held>> {
  const valid = validateKey(request.key);
  if (!valid.ok) return { ok: false, reason: "bad-key", error: valid.error, fix: valid.fix };
  const validHolder = validateId(request.holder, "holder");
  if (!validHolder.ok)
    return { ok: false, reason: "bad-key", error: validHolder.error, fix: validHolder.fix };
  const cleared: Cleared = {};
  const result = await claimRounds(team, processClaim(team, request), cleared);
  // Handed back whether this call won on a later round or lost: the caller retires its holder.
  const gone = cleared.cleared;
  if (!gone || (!result.ok && result.reason === "bad-key")) return result;
  if (result.ok && result.took?.from?.token === gone.from?.token) return result;
  return { ...result, cleared: gone };
}

/** A request with its judge: the caller's own, or the roster's for a claim held by a process. */
type Judged<Held> = Omit<ClaimRequest<Held>, "judge" | "heldBy" | "maxAgeMs"> & {
  judge: (current: Claim, now: number) => Promise<ClaimVerdict<Held>>;
};

/** A claim held by a process, as one with a judge: the process's facts and the claim's age. */
function processClaim<Held>(team: Team, request: ClaimRequest<Held>): Judged<Held> {
  if (request.judge) return request;
  const { heldBy, maxAgeMs } = request;
  return {
    ...request,
    data: { ...request.data, pid: heldBy.pid, start: heldBy.start },
    judge: (current, now) => judgeHeldClaim<Held>(team, current, now, maxAgeMs),
  };
}

async function claimRounds<Held>(
  team: Team,
  request: Judged<Held>,
  cleared: Cleared,
): Promise<ClaimResult<Held>> {
  const { space, key, holder } = request;
  const stored = claimKey(key);
  let current: ClaimEntry;
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const now = team.clock();
    const mine: Claim = {
      v: 1,
      key,
      holder,
      at: iso(now),
      token: uniqueName(now),
      data: request.data,
    };
    const text = `${JSON.stringify(mine)}\n`;
    const created = await team.store.create(space, stored, text);
    if (created) {
      const took = await displacedTakeover(request, created.displaced, now);
      return { ok: true, claim: mine, ...(took && { took }) };
    }
    current = await readEntry(team, space, key);
    if (current === undefined) continue; // released since: try again
    if (current !== "unreadable" && current.claim.holder === holder)
      return refreshOwn(team, request, current);
    if (current !== "unreadable") {
      const verdict = await request.judge(current.claim, now);
      if (!verdict.free)
        return { ok: false, reason: "held", held: verdict.held, current: current.claim };
    }
    const lock = await takeLock(team, claimLockKey(space, stored), holder);
    if (!lock) return { ok: false, reason: "busy", current: claimOf(current) };
    try {
      // Re-judged under the lock, immediately before the takeover.
      const again = await readEntry(team, space, key);
      if (again === undefined || !sameClaim(again, current)) continue;
      let reason: Takeover["reason"] = "unreadable";
      let took: Takeover | undefined;
      if (again !== "unreadable") {
        const verdict = await request.judge(again.claim, team.clock());
        if (!verdict.free)
          return { ok: false, reason: "held", held: verdict.held, current: again.claim };
        reason = verdict.reason;
      }
      // Commit, fenced right before it, by the store's compare-and-swap on the judged version:
      // a CAS store does it in one step; the folder store moves the judged claim aside and
      // creates ours exclusively (never over a claim taken meanwhile). A fresh creator may slip
      // into the moment the key is free there: it wins and is told what it replaced (its create's
      // `displaced`); we are told `cleared`.
      if (!(await holdsLock(team, lock))) return { ok: false, reason: "busy", current: undefined };
      if (again === "unreadable") {
        if (!(await team.store.setAside(space, stored, notAClaim))) continue;
        const created = await team.store.create(space, stored, text);
        if (!created) continue;
        // A claim a takeover left displaced here is this one's to take over, as at any create.
        took = await displacedTakeover(request, created.displaced, now);
      } else {
        const swapped = await team.store.replace(space, stored, text, again.stored.version, {
          takeover: true,
        });
        if (!swapped.ok) {
          if (swapped.reason === "cleared") cleared.cleared = { from: again.claim, reason };
          continue;
        }
      }
      // Verify after writing that the claim names us.
      const written = claimOf(await readEntry(team, space, key));
      if (written?.token !== mine.token) return { ok: false, reason: "busy", current: written };
      return { ok: true, claim: mine, took: took ?? { from: claimOf(again), reason } };
    } finally {
      await releaseLock(team, lock);
    }
  }
  return { ok: false, reason: "busy", current: claimOf(current) };
}

/**
 * A create that won the key in a takeover's free moment (the folder store's) replaced the claim
 * that takeover judged: it is this caller's takeover now, if the judge frees that holder still.
 */
async function displacedTakeover<Held>(
  request: Judged<Held>,
  displaced: string | undefined,
  now: number,
): Promise<Takeover | undefined> {
  const parsed = displaced === undefined ? undefined : parseClaim(displaced);
  if (!parsed?.ok || claimKey(parsed.value.key) !== claimKey(request.key)) return undefined;
  if (parsed.value.holder === request.holder) return undefined;
  const verdict = await request.judge(parsed.value, now).catch(() => undefined);
  // An orphan (no record names the key) has nothing to hand over, and a displaced file left by a
  // crash or planted may name a live member of another label: no `took` from it.
  if (!verdict?.free || verdict.reason === "orphan") return undefined;
  return { from: parsed.value, reason: verdict.reason };
}

/** Our own claim asked for again: keep it (and its token); rewrite only a changed key case. */
async function refreshOwn<Held>(
  team: Team,
  request: ClaimRequest<Held>,
  current: { claim: Claim; stored: Stored },
): Promise<ClaimResult<Held>> {
  if (current.claim.key === request.key && request.data === undefined)
    return { ok: true, claim: current.claim };
  const stored = claimKey(request.key);
  const lock = await takeLock(team, claimLockKey(request.space, stored), request.holder);
  if (!lock) return { ok: false, reason: "busy", current: current.claim };
  try {
    const again = await readEntry(team, request.space, request.key);
    if (again === undefined || again === "unreadable" || again.claim.token !== current.claim.token)
      return { ok: false, reason: "busy", current: claimOf(again) };
    const updated: Claim = {
      ...current.claim,
      key: request.key,
      data: request.data ?? current.claim.data,
    };
    if (await holdsLock(team, lock))
      await team.store.replace(
        request.space,
        stored,
        `${JSON.stringify(updated)}\n`,
        again.stored.version,
      );
    return { ok: true, claim: updated };
  } finally {
    await releaseLock(team, lock);
  }
}
