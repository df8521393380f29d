// What this pi session's events and its teammates' deaths say: one of pi's own events recorded as
// a row of core's signal table (engine `pi`), and any member proven dead marked gone; the person
// told once when the change deserves it. Wiring only.
import type { Roster, TeamRead } from "@muster/roster";
import { alertAbout, alertDeaths, noticeDeaths, reportSignal } from "@muster/wiring";

/** Record pi's event `name` for member `id`, and alert the person when it deserves attention. */
export async function reportPiSignal(roster: Roster, id: string, name: string, at: number) {
  const outcome = await reportSignal(roster, id, { engine: "pi", signal: name, at });
  if (outcome.attention)
    await alertAbout(roster, id, outcome.attention, {
      env: process.env,
      detail: {
        turnMs: outcome.before && outcome.after && outcome.after.at - outcome.before.since,
      },
    });
}

/** Any member whose process died since it last reported: marked gone, the person told once. */
export async function watchDeaths(roster: Roster | undefined, read: TeamRead | undefined) {
  if (!roster || !read?.ok) return;
  const noticed = await noticeDeaths(roster, read.members);
  // Many at once (a host gone, planted records) are one line, not one alert each.
  if (noticed.length > 0) await alertDeaths(roster, noticed, { env: process.env });
}
