import { describe, expect, test } from "vitest";
import { type BeatMember, hostBeats } from "./_host-beats.js";

const member = (id: string, fields: Partial<BeatMember>): BeatMember => ({
  id,
  liveness: "process",
  state: "live",
  reason: "process-alive",
  ...fields,
});

describe("a host's beater", () => {
  test.each([
    ["a process member proven alive here is beaten", member("a", {}), ["a"], []],
    [
      "a process member of another host (unknown here) is not this host's",
      member("b", { reason: "process-unknown" }),
      [],
      [],
    ],
    [
      "a heartbeat member beats itself",
      member("c", { liveness: "heartbeat", reason: "heartbeat-fresh" }),
      [],
      [],
    ],
    [
      "a member proven dead here leaves, whatever keeps it live",
      member("d", { liveness: "heartbeat", state: "gone", reason: "process-dead" }),
      [],
      ["d"],
    ],
    [
      "a stale member is not proven dead: it stays",
      member("e", { liveness: "heartbeat", state: "gone", reason: "heartbeat-stale" }),
      [],
      [],
    ],
  ])("%s", (_title, one, beat, leave) => {
    expect(hostBeats([one])).toEqual({ beat, leave, any: beat.length + leave.length > 0 });
  });

  test("with no member of this host the round has nothing to do", () => {
    expect(hostBeats([]).any).toBe(false);
  });
});
