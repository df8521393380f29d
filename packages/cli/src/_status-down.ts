// The declared members (and those `muster down` took down) that are not on the team now, as
// `status`, `status --json` and the dashboard show them (read by _status-down-read.ts).
import { printable } from "@muster/core";
import { age } from "./_render.js";

/** A member that is down: since when (null where that is not known), and what brings it back. */
export type DownView = { label: string; engine: string; ageMs: number | null; fix: string };

/** A line per member that is down: `  bob (pi) is down — muster up bob brings it back`. */
export const downLines = (down: readonly DownView[]) =>
  down.map(
    (member) =>
      `  ${printable(member.label)} (${printable(member.engine)}) is down${member.ageMs === null ? "" : ` since ${age(member.ageMs)} ago`} — ${printable(member.fix)}`,
  );
