// Letting go of claims, over the store contract: a release by the holder, prune removing a claim it
// judged dead (both compare-and-delete under the key's lock), a hand-off (compare-and-swap), and
// the listing of a space with the entries that are not claims named.
import { type Claim, claimKey, parseClaim, readClaim, readEntry } from "./_claim-read.js";
import type { ClaimSpace } from "./_layout.js";
import { claimLockKey, releaseLock, takeLock } from "./_lock.js";
import type { Team } from "./_team.js";
import { validateKey } from "./_validate.js";

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
  // Under the key's lock, so no takeover is between its look and its commit; busy: left alone.
  const lock = await takeLock(team, claimLockKey(space, claimKey(key)), "remove");
  if (!lock) return false;
  try {
    const current = await readEntry(team, space, key);
    if (current === undefined || current === "unreadable") return false;
    if (current.claim.token !== expected.token) return false;
    return await team.store.remove(space, claimKey(key), current.stored.version);
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

/** Replace a claim we read with `next` (a hand-off), only while it is still the one read. */
export async function swapClaim(
  team: Team,
  space: ClaimSpace,
  current: Claim,
  next: Claim,
): Promise<boolean> {
  const entry = await readEntry(team, space, current.key);
  if (entry === undefined || entry === "unreadable" || entry.claim.token !== current.token)
    return false;
  const text = `${JSON.stringify(next)}\n`;
  const swapped = await team.store.replace(
    space,
    claimKey(current.key),
    text,
    entry.stored.version,
  );
  return swapped.ok;
}

/** Every claim in a space, with the entries that are not claims named. */
export async function listClaims(
  team: Team,
  space: ClaimSpace,
): Promise<{ claims: Claim[]; warnings: string[] }> {
  const listing = await team.store.list(space);
  const warnings = listing.unreadable.map(
    (entry) => `${space}/${entry.name} cannot be read (${entry.error}); skipped`,
  );
  const claims: Claim[] = [];
  for (const entry of listing.entries) {
    const parsed = parseClaim(entry.stored.text);
    if (parsed.ok && claimKey(parsed.value.key) === entry.key) claims.push(parsed.value);
    else
      warnings.push(
        `${space}/${entry.name} ${parsed.ok ? "names another key" : parsed.error}; skipped`,
      );
  }
  return { claims, warnings };
}
