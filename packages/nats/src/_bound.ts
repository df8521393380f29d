// How much of one space one key may have written, as the store reads it. NATS permissions cannot
// bound what a member writes to the team's bucket (every member may write every key, and a
// subject has no count of its own), so a teammate could write 6,000 records, messages or cards and
// every read would list, verify and parse them all (measured: a roster read 5 ms → 23 s). So a
// listing keeps, per key that signed (by the header, before anything is verified), the oldest
// `boundFor(prefix)` values, and skips the rest before they cost a verification or reach the
// roster: a later flood never pushes an older value out. What is skipped is said once per key and
// space. Values no key signed count as one writer. Owns the bounds; not who may write what.
import { claimedSigner } from "./_envelope.js";
import type { Entry } from "./_kv.js";

/** A person's members at once: records (and bindings) one key may have in the team. */
const MEMBERS = 64;
/**
 * One member's unread mail from one key: the oldest are shown, the rest once those are read (a
 * window, not a loss). Its read mail is signed by the member's own key, which is not bounded there.
 */
const MAIL = 1_000;
/** What one key may have in any other space: cards, claims, receipt marks. */
const OTHER = 500;

/** How many values of one key a listing under `prefix` keeps. */
export function boundFor(prefix: string): number {
  const space = prefix.split(".", 1)[0] ?? "";
  if (space === "sessions" || space === "keys") return MEMBERS;
  if (space === "unread" || space === "read") return MAIL;
  return OTHER;
}

export type Skipped = { signer: string | undefined; count: number; bound: number };

/**
 * `entries` with at most `bound` of each signer's (its oldest) but `exempt`'s (the member's own key
 * in its read mail), and how many of whose were skipped.
 */
export function bounded(
  entries: readonly Entry[],
  bound: number,
  exempt?: string,
): { kept: Entry[]; skipped: Skipped[] } {
  const bySigner = new Map<string | undefined, Entry[]>();
  for (const entry of entries) {
    const signer = claimedSigner(entry.value);
    const own = bySigner.get(signer);
    if (own) own.push(entry);
    else bySigner.set(signer, [entry]);
  }
  const over = new Set<Entry>();
  const skipped: Skipped[] = [];
  for (const [signer, own] of bySigner) {
    if (own.length <= bound || (exempt !== undefined && signer === exempt)) continue;
    own.sort((one, other) => one.revision - other.revision);
    for (const entry of own.slice(bound)) over.add(entry);
    skipped.push({ signer, count: own.length - bound, bound });
  }
  if (over.size === 0) return { kept: [...entries], skipped };
  return { kept: entries.filter((entry) => !over.has(entry)), skipped };
}
