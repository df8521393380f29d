// What a host's beater does for the members whose process lives on this host, on a team whose
// other hosts can judge them by their heartbeat only (a team on NATS): beat each member kept live
// by its process while that process is proven alive here, and take off the team each member this
// host proves dead (no other host can prove it, and its label and claims are then free at once).
// Pure: the members come judged by the roster with this host's process facts.

/** A member as this host's roster judged it. */
export type BeatMember = {
  id: string;
  liveness: "heartbeat" | "process";
  state: string;
  reason: string;
};

/** One round of a host's beater: whom to beat, whom to take off, and whether any is this host's. */
export type HostBeats = { beat: string[]; leave: string[]; any: boolean };

/**
 * The round for these members. `process-alive` and `process-dead` are facts only this host has
 * (the roster answers `unknown` for a process of another host), so they pick out this host's.
 */
export function hostBeats(members: readonly BeatMember[]): HostBeats {
  const beat = members
    .filter((member) => member.liveness === "process" && member.reason === "process-alive")
    .map((member) => member.id);
  const leave = members
    .filter((member) => member.state === "gone" && member.reason === "process-dead")
    .map((member) => member.id);
  return { beat, leave, any: beat.length + leave.length > 0 };
}
