// /team status and team_roster hide a planted record by the roster's one rule (plantedRecord): a
// label or an id join would refuse, as `muster status` and `muster roster` hide it.
import type { Member } from "@muster/roster";
import { describe, expect, it } from "vitest";
import { statusText } from "./_render.js";

const now = Date.now();
const at = new Date(now).toISOString();
const member = (id: string, label: string) =>
  ({
    id,
    label,
    agent: "pi",
    pid: process.pid,
    state: "live",
    holdsLabel: true,
    liveness: "heartbeat",
    watching: { armed: true, wake: false },
    joinedAt: at,
    heartbeatAt: at,
  }) as unknown as Member;

describe("pi's roster", () => {
  it("hides a record whose id join would refuse, under a good label", () => {
    const text = statusText(
      {
        status: { kind: "none" },
        left: false,
        members: [member("c1", "carol"), member("../up", "mallory")],
        unread: 0,
        id: "c1",
      },
      now,
    );
    expect(text).toContain("- carol:");
    expect(text).not.toContain("mallory");
    expect(text).toContain("(1 record(s) with a label or id join would refuse: not shown)");
  });
});
