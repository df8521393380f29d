// A send to one label, addressed from the records it names only: the sender's and the holder's,
// each read by key with its label's claim, and judged by the rules a whole-team read judges by
// (`readTeam`, `resolveRecipients`). Reading a team of a thousand to find two of them is most of
// a send's time on a remote store. Only a send this can prove is answered here; anything else (a
// refusal, `all`, a value that is not a clean record or claim, a store that fails) is left to the
// whole-team read, which decides it and says why.
import { claimKey, readEntry } from "./_claim-read.js";
import { askedOnce, type ProcessFacts } from "./_liveness.js";
import { type Member, memberOf } from "./_members.js";
import type { Message } from "./_message.js";
import { parseRecord } from "./_record.js";
import type { Team } from "./_team.js";
import { labelKey, validateId } from "./_validate.js";

type Read = { team: Team; now: number; processes: ProcessFacts };
type ClaimEntry = Awaited<ReturnType<typeof readEntry>>;

/** The keyed read cannot decide as the whole team would: the caller reads the whole team. */
class Unsure extends Error {}

/** The label's claim as a whole-team listing keeps it: none, or one whose key is the label's. */
function labelClaim(label: string, entry: ClaimEntry) {
  if (entry === "unreadable") throw new Unsure();
  return entry !== undefined && claimKey(entry.claim.key) === claimKey(label)
    ? entry.claim
    : undefined;
}

/** The member with this id, judged now (`known`: its label's claim, already read). */
async function memberById(
  read: Read,
  id: string,
  known?: { label: string; entry: ClaimEntry },
): Promise<Member | undefined> {
  const stored = await read.team.store.get("sessions", id);
  if (stored === undefined) return undefined;
  const parsed = parseRecord(stored.text);
  if (!parsed.ok || parsed.value.id !== id) throw new Unsure();
  const record = parsed.value;
  const entry =
    known !== undefined && labelKey(known.label) === labelKey(record.label)
      ? known.entry
      : await readEntry(read.team, "labels", record.label);
  const claim = labelClaim(record.label, entry);
  const holders = new Map(claim ? [[labelKey(record.label), claim.holder]] : []);
  return memberOf(read.team, record, { now: read.now, holders, processes: read.processes });
}

/** Whoever holds `label` (the claim's holder, whose record names that label), judged now. */
async function holderOf(read: Read, label: string): Promise<Member | undefined> {
  const entry = await readEntry(read.team, "labels", label);
  const claim = labelClaim(label, entry);
  if (claim === undefined) return undefined;
  if (!validateId(claim.holder).ok) throw new Unsure();
  const member = await memberById(read, claim.holder, { label, entry });
  return member?.holdsLabel && labelKey(member.label) === labelKey(label) ? member : undefined;
}

const isLive = (member: Member | undefined): member is Member =>
  member?.state === "live" && member.holdsLabel;

/**
 * Who a send from `from` to the label `to` reaches, read by key: the same answer as
 * `resolveRecipients` over the whole team, or undefined when it is not a send to a live holder
 * (or cannot be told so from these records): then the whole team is read.
 */
export async function addressByKey(
  team: Team,
  input: { from: string; to: string; guest?: string | undefined },
): Promise<{ ok: true; sender: Message["from"]; to: Member[] } | undefined> {
  try {
    const { from, to } = input;
    if (labelKey(to) === "all") return undefined;
    const read: Read = { team, now: team.clock(), processes: askedOnce(team.processes) };
    const [byId, byLabel, holder] = await Promise.all([
      validateId(from).ok ? memberById(read, from) : undefined,
      holderOf(read, from),
      holderOf(read, to),
    ]);
    // An id is the sender before a label, as in a whole-team read.
    const member = isLive(byId) ? byId : isLive(byLabel) ? byLabel : undefined;
    const sender: Message["from"] | undefined = member
      ? { id: member.id, label: member.label }
      : input.guest !== undefined && validateId(from).ok
        ? { id: from, label: input.guest, guest: true }
        : undefined;
    if (sender === undefined || holder?.state !== "live" || holder.id === sender.id)
      return undefined;
    return { ok: true, sender, to: [holder] };
  } catch {
    return undefined;
  }
}
