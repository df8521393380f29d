// A member's activity: whether its agent is in a turn (busy) or waiting for input (idle), as its
// engine's hooks report it. One field of the member's record, written whole like a heartbeat.
import { readClaim } from "./_claim.js";
import { errorText, writeWhole } from "./_fs.js";
import { loadRecord } from "./_members.js";
import type { ActivityState } from "./_record.js";
import { iso, type Team } from "./_team.js";
import { validateId } from "./_validate.js";

export type ActivityResult =
  | { ok: true }
  | {
      ok: false;
      reason: "lost" | "bad-id" | "bad-input" | "unwritable";
      error: string;
      fix?: string | undefined;
    };

/** Record what the member's agent is doing now; `lost` when it is no longer on the team. */
export async function recordActivity(
  team: Team,
  id: string,
  state: ActivityState,
): Promise<ActivityResult> {
  const valid = validateId(id);
  if (!valid.ok) return { ok: false, reason: "bad-id", error: valid.error, fix: valid.fix };
  if (state !== "idle" && state !== "busy")
    return { ok: false, reason: "bad-input", error: `unknown activity ${JSON.stringify(state)}` };
  try {
    const record = await loadRecord(team, id);
    const claim = record ? await readClaim(team, "labels", record.label) : undefined;
    if (!record || claim === undefined || claim === "unreadable" || claim.holder !== id)
      return { ok: false, reason: "lost", error: `session ${id} is no longer on the team` };
    const now = team.clock();
    // No member lock, as for a heartbeat: the record is written whole, and the heartbeat it
    // carries is the one it had (an engine that reports activity is kept live by its process).
    const text = `${JSON.stringify({ ...record, activity: { state, at: iso(now) } })}\n`;
    await writeWhole(team.fs, team.paths.recordFile(id), text, now);
    return { ok: true };
  } catch (error) {
    return {
      ok: false,
      reason: "unwritable",
      error: `cannot write the team folder ${team.paths.dir}: ${errorText(error)}`,
    };
  }
}
