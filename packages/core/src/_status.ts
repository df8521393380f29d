// What a status line says about this session's place on the team. The roster record is the truth;
// a remembered standing speaks only while the roster cannot be read.
import { ownRecord, type SessionView } from "./_join.js";
import { joinFailureLine, type RefusalFixOptions } from "./_refusal.js";
import type { Watching } from "./_types.js";

export type TeamStatus =
  | { kind: "member"; label: string; watching: Watching; source: "roster" | "standing" }
  | { kind: "refused"; label: string; line: string }
  | { kind: "none" };

/**
 * The live record that still holds its label first; else the standing when the roster cannot be read; else only a remembered
 * refusal. A successful standing the roster no longer backs is not repeated.
 */
export function teamStatus(session: SessionView, options: RefusalFixOptions = {}): TeamStatus {
  const record = ownRecord(session);
  if (record?.state === "live" && record.holdsLabel !== false) {
    return { kind: "member", label: record.label, watching: record.watching, source: "roster" };
  }
  const standing = session.standing;
  if (!standing) return { kind: "none" };
  if (!standing.ok) {
    return { kind: "refused", label: standing.label, line: joinFailureLine(standing, options) };
  }
  if (session.roster === "unknown") {
    return {
      kind: "member",
      label: standing.label,
      watching: standing.watching,
      source: "standing",
    };
  }
  return { kind: "none" };
}
