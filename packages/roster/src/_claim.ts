// The one exclusive claim: a key in a claim space (labels today; board cards and path leases next)
// held by one holder. A free key is taken by an exclusive create; a held one is taken over only
// when the caller's judge says its holder is dead or expired, re-judged under a fenced lock, and
// committed by compare-then-replace; a claim is released or pruned only by compare-then-remove.
import {
  createExclusive,
  errorCode,
  errorText,
  isTempName,
  listFolder,
  readIfPresent,
  tempBeside,
  uniqueName,
  writeWhole,
} from "./_fs.js";
import type { ClaimSpace } from "./_layout.js";
import { holdsLock, releaseLock, removeIfToken, takeLock } from "./_lock.js";
import { isObject, isTime, type Parsed, parseJson } from "./_record.js";
import { iso, type Team } from "./_team.js";
import { validateId, validateKey } from "./_validate.js";

/** A claim with nothing behind it yet (its holder is still joining) is respected this long. */
export const CLAIM_GRACE_MS = 10_000;

export type Claim = {
  v: 1;
  /** The key as the holder asked for it; claims compare keys case-insensitively. */
  key: string;
  /** Who holds it: a session id. */
  holder: string;
  /** When it was taken. */
  at: string;
  /** Unique per take: compare-then-remove compares it. */
  token: string;
  /** Whatever the space keeps with a claim (a card's title, a lease's paths). */
  data?: Record<string, unknown> | undefined;
};

/** What a judge says of the current holder: free to take over (and why), or held. */
export type ClaimVerdict<Held> =
  | { free: true; reason: "dead" | "expired" | "orphan" }
  | { free: false; held: Held };

export type ClaimRequest<Held> = {
  space: ClaimSpace;
  /** Validated by the caller: letters, digits, `.`, `_`, `-`. */
  key: string;
  holder: string;
  data?: Record<string, unknown> | undefined;
  /** May `current` be taken over? Asked first, and again under the lock just before the commit. */
  judge: (current: Claim, now: number) => Promise<ClaimVerdict<Held>>;
};

export type Takeover = {
  /** The claim taken over; undefined when it did not parse (it went to quarantine/). */
  from: Claim | undefined;
  reason: "dead" | "expired" | "orphan" | "unreadable";
};

/**
 * A takeover that cleared the judged claim and then lost the key to a fresh creator in the moment
 * it was free: the judged holder is gone from the claim, and retiring it falls to this caller.
 */
export type Cleared = { cleared?: Takeover | undefined };

export type ClaimResult<Held> =
  | ({ ok: true; claim: Claim; took?: Takeover | undefined } & Cleared)
  | ({ ok: false; reason: "held"; held: Held; current: Claim } & Cleared)
  /** Another process is taking it over right now, or it changed hands while we looked. */
  | ({ ok: false; reason: "busy"; current: Claim | undefined } & Cleared)
  | { ok: false; reason: "bad-key"; error: string; fix?: string | undefined };

/** The key a claim is filed under: keys compare case-insensitively. */
export const claimKey = (key: string) => key.toLowerCase();

export function parseClaim(text: string): Parsed<Claim> {
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  // Claims written before the general claim named the holder `id` and the key `label`.
  const key = value.key ?? value.label;
  const holder = value.holder ?? value.id;
  const token = value.token ?? value.at;
  if (
    typeof key !== "string" ||
    typeof holder !== "string" ||
    typeof token !== "string" ||
    !isTime(value.at) ||
    (value.data !== undefined && !isObject(value.data))
  ) {
    return { ok: false, error: "is missing fields a claim needs" };
  }
  return {
    ok: true,
    value: { v: 1, key, holder, at: value.at, token, data: value.data as Claim["data"] },
  };
}

const tokenIn = (text: string | undefined) => {
  const parsed = text === undefined ? undefined : parseClaim(text);
  return parsed?.ok ? parsed.value.token : undefined;
};

/** The claim on `key`: undefined when free, `unreadable` when the file there is not a claim. */
export async function readClaim(
  team: Team,
  space: ClaimSpace,
  key: string,
): Promise<Claim | "unreadable" | undefined> {
  if (!validateKey(key).ok) return undefined;
  let text: string | undefined;
  try {
    text = await readIfPresent(team.fs, team.paths.claimFile(space, claimKey(key)));
  } catch {
    return "unreadable"; // a folder, a symlink, a file we may not read
  }
  if (text === undefined) return undefined;
  const parsed = parseClaim(text);
  return parsed.ok ? parsed.value : "unreadable";
}

const sameClaim = (left: Claim | "unreadable", right: Claim | "unreadable") =>
  left === "unreadable" || right === "unreadable" ? left === right : left.token === right.token;

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
  const result = await claimRounds(team, request, cleared);
  // Handed back whether this call won on a later round or lost: the caller retires its holder.
  const gone = cleared.cleared;
  if (!gone || (!result.ok && result.reason === "bad-key")) return result;
  if (result.ok && result.took?.from?.token === gone.from?.token) return result;
  return { ...result, cleared: gone };
}

async function claimRounds<Held>(
  team: Team,
  request: ClaimRequest<Held>,
  cleared: Cleared,
): Promise<ClaimResult<Held>> {
  const { space, key, holder } = request;
  const file = team.paths.claimFile(space, claimKey(key));
  let current: Claim | "unreadable" | undefined;
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
    if (await createExclusive(team.fs, file, text, now)) return { ok: true, claim: mine };
    current = await readClaim(team, space, key);
    if (current === undefined) continue; // released since: try again
    if (current !== "unreadable" && current.holder === holder)
      return refreshOwn(team, request, current);
    if (current !== "unreadable") {
      const verdict = await request.judge(current, now);
      if (!verdict.free) return { ok: false, reason: "held", held: verdict.held, current };
    }
    const lock = await takeLock(team, team.paths.lockFile(space, claimKey(key)), holder);
    if (!lock)
      return { ok: false, reason: "busy", current: current === "unreadable" ? undefined : current };
    try {
      // Re-judged under the lock, immediately before the takeover.
      const again = await readClaim(team, space, key);
      if (again === undefined || !sameClaim(again, current)) continue;
      let reason: Takeover["reason"] = "unreadable";
      if (again !== "unreadable") {
        const verdict = await request.judge(again, team.clock());
        if (!verdict.free) return { ok: false, reason: "held", held: verdict.held, current: again };
        reason = verdict.reason;
      }
      // Commit, fenced right before it: move the judged claim aside only if it still carries the
      // judged token, then create ours exclusively, and verify right after. Never a replace: a
      // taker that stalled past the fence would overwrite a claim taken meanwhile, and both would
      // be told they hold it. A fresh creator may slip into the moment the key is free: it wins,
      // and we are told on the next round.
      if (!(await holdsLock(team, lock))) return { ok: false, reason: "busy", current: undefined };
      const removed =
        again === "unreadable"
          ? await quarantineClaim(team, file, now)
          : await removeIfToken(team.fs, file, again.token, now, tokenIn);
      if (!removed) continue;
      if (!(await createExclusive(team.fs, file, text, now))) {
        if (again !== "unreadable") cleared.cleared = { from: again, reason };
        continue;
      }
      // Verify after writing that the claim names us.
      const written = await readClaim(team, space, key);
      if (written === undefined || written === "unreadable" || written.token !== mine.token)
        return {
          ok: false,
          reason: "busy",
          current: written === "unreadable" ? undefined : written,
        };
      return {
        ok: true,
        claim: mine,
        took: { from: again === "unreadable" ? undefined : again, reason },
      };
    } finally {
      await releaseLock(team, lock);
    }
  }
  return { ok: false, reason: "busy", current: current === "unreadable" ? undefined : current };
}

/** Our own claim asked for again: keep it (and its token); rewrite only a changed key case. */
async function refreshOwn<Held>(
  team: Team,
  request: ClaimRequest<Held>,
  current: Claim,
): Promise<ClaimResult<Held>> {
  if (current.key === request.key && request.data === undefined)
    return { ok: true, claim: current };
  const lock = await takeLock(
    team,
    team.paths.lockFile(request.space, claimKey(request.key)),
    request.holder,
  );
  if (!lock) return { ok: false, reason: "busy", current };
  try {
    const again = await readClaim(team, request.space, request.key);
    if (again === undefined || again === "unreadable" || again.token !== current.token)
      return { ok: false, reason: "busy", current: again === "unreadable" ? undefined : again };
    const updated: Claim = { ...current, key: request.key, data: request.data ?? current.data };
    const now = team.clock();
    if (await holdsLock(team, lock))
      await writeWhole(
        team.fs,
        team.paths.claimFile(request.space, claimKey(request.key)),
        `${JSON.stringify(updated)}\n`,
        now,
      );
    return { ok: true, claim: updated };
  } finally {
    await releaseLock(team, lock);
  }
}

/**
 * Move a file that is not a claim to quarantine/ (it is never deleted). Compared after the move: a
 * claim written there since the look (a taker that stalled past the lock's break would otherwise
 * quarantine the winner's) is put back, and false is answered.
 */
async function quarantineClaim(team: Team, file: string, now: number): Promise<boolean> {
  const name = file.slice(file.lastIndexOf("/", file.lastIndexOf("/") - 1) + 1).replace("/", "-");
  const aside = tempBeside(file, now);
  try {
    await team.fs.rename(file, aside);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw error;
  }
  const moved = await readIfPresent(team.fs, aside).catch(() => undefined);
  if (moved !== undefined && parseClaim(moved).ok) {
    await team.fs.link(aside, file).catch(() => undefined);
    await team.fs.unlink(aside).catch(() => undefined);
    return false;
  }
  await team.fs.rename(aside, team.paths.quarantineFile(`${uniqueName(now)}-${name}`));
  return true;
}

/**
 * Remove the claim on `key` only if it is still the one the caller looked at (same token): a
 * release by its holder, or prune removing a claim it judged dead. True when removed.
 */
export async function removeClaim(
  team: Team,
  space: ClaimSpace,
  key: string,
  expected: Pick<Claim, "token">,
): Promise<boolean> {
  if (!validateKey(key).ok) return false;
  const file = team.paths.claimFile(space, claimKey(key));
  // Under the key's lock, so no takeover is between its look and its commit; busy: left alone.
  const lock = await takeLock(team, team.paths.lockFile(space, claimKey(key)), "remove");
  if (!lock) return false;
  try {
    return await removeIfToken(team.fs, file, expected.token, team.clock(), tokenIn);
  } finally {
    await releaseLock(team, lock);
  }
}

/** Release `holder`'s claim on `key`; nothing happens when another holds it. */
export async function releaseClaim(
  team: Team,
  space: ClaimSpace,
  key: string,
  holder: string,
): Promise<boolean> {
  const current = await readClaim(team, space, key);
  if (current === undefined || current === "unreadable" || current.holder !== holder) return false;
  return removeClaim(team, space, key, current);
}

/** Every claim in a space, with the files that are not claims named. */
export async function listClaims(
  team: Team,
  space: ClaimSpace,
): Promise<{ claims: Claim[]; warnings: string[] }> {
  const folder = team.paths.claimFolder(space);
  const names = (await listFolder(team.fs, folder)).filter(
    (name) => !isTempName(name) && name.endsWith(".json"),
  );
  const warnings: string[] = [];
  const claims: Claim[] = [];
  // Read concurrently: a team of 1,000 is 1,000 small reads.
  const texts = await Promise.all(
    names.map((name) =>
      readIfPresent(team.fs, `${folder}/${name}`).then(
        (text) => ({ name, text, error: undefined }),
        (error: unknown) => ({ name, text: undefined, error: errorText(error) }),
      ),
    ),
  );
  for (const { name, text, error } of texts) {
    if (error !== undefined) warnings.push(`${space}/${name} cannot be read (${error}); skipped`);
    if (text === undefined) continue;
    const parsed = parseClaim(text);
    if (parsed.ok && `${claimKey(parsed.value.key)}.json` === name) claims.push(parsed.value);
    else
      warnings.push(`${space}/${name} ${parsed.ok ? "names another key" : parsed.error}; skipped`);
  }
  return { claims, warnings };
}
