// The land queue as the status line reads it: the lands space, which any member may fill (a
// teammate's flood of keys), is listed only while a land is under way, the only time the line
// shows who waits; every other reader lists it as before.
import type { Claim, Roster } from "@muster/roster";
import { describe, expect, it } from "vitest";
import { landQueue } from "./land-claim.ts";

const claim = (key: string): Claim =>
  ({ space: "lands", key, holder: "m1", at: new Date().toISOString() }) as unknown as Claim;

/** A roster with these lands claims, each live, counting its listings of the space. */
function rosterWith(claims: Record<string, Claim>) {
  const listed = { count: 0 };
  const roster = {
    readClaim: async (_space: string, key: string) => claims[key],
    claimHolds: async () => true,
    listClaims: async () => {
      listed.count += 1;
      return Object.values(claims);
    },
  } as unknown as Roster;
  return { roster, listed };
}

describe("landQueue", () => {
  it("with waitingWhileLanding, lists no waiting while nobody lands", async () => {
    const { roster, listed } = rosterWith({ "wait-bob": claim("wait-bob") });
    const queue = await landQueue(roster, { waitingWhileLanding: true });
    expect(listed.count).toBe(0);
    expect(queue.waiting).toEqual([]);
    expect(queue.landing).toBeUndefined();
  });

  it("with waitingWhileLanding, lists who waits while a land is under way", async () => {
    const { roster, listed } = rosterWith({
      landing: claim("landing"),
      "wait-bob": claim("wait-bob"),
    });
    const queue = await landQueue(roster, { waitingWhileLanding: true });
    expect(listed.count).toBe(1);
    expect(queue.waiting).toEqual(["bob"]);
    expect(queue.landing).toBeDefined();
  });

  it("without it, lists who waits always", async () => {
    const { roster, listed } = rosterWith({ "wait-bob": claim("wait-bob") });
    expect((await landQueue(roster)).waiting).toEqual(["bob"]);
    expect(listed.count).toBe(1);
  });
});
