// `muster send` over the table every door answers the same way (`@muster/test-team`'s SEND_TABLE):
// a typo among several labels sends nothing and is named with a suggestion; repeats are one address.
// The MCP and pi doors run the same rows (their own send-table tests).
import { rmSync } from "node:fs";
import {
  expectedCounts,
  joinAsThisProcess,
  joinSendPeers,
  mailCounts,
  openTestTeam,
  SEND_TABLE,
} from "@muster/test-team";
import { afterAll, describe, expect, it } from "vitest";
import { musterKit } from "../test/run.ts";

const { scratch, newTeam, muster } = musterKit("muster-send-table-");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("muster send answers the one send table", () => {
  it.each(SEND_TABLE)("$name", async (row) => {
    const dir = newTeam();
    const roster = await openTestTeam(dir);
    const ids = await joinSendPeers(roster);
    await joinAsThisProcess(roster, "lead");
    const env = { MUSTER_TEAM_DIR: dir };
    const human = await muster(["send", row.to, "hello", "--from", "lead"], { env });
    const json = await muster(["send", row.to, "hello", "--from", "lead", "--json"], { env });
    if (row.refused) {
      expect(human.status).toBe(1);
      expect(human.stderr).toContain(`nobody holds the label "${row.refused.label}"`);
      expect(human.stderr.trim().split("\n")).toHaveLength(1);
      const document = JSON.parse(json.stdout);
      expect(document).toMatchObject({
        ok: false,
        reason: "no-live-holder",
        label: row.refused.label,
      });
      if (row.refused.suggestion) {
        expect(human.stderr).toContain(`did you mean "${row.refused.suggestion}"?`);
        expect(document.suggestion).toBe(row.refused.suggestion);
      } else expect(document).not.toHaveProperty("suggestion");
      expect(await mailCounts(roster, ids)).toEqual(expectedCounts(row));
    } else {
      expect(human.status).toBe(0);
      expect(JSON.parse(json.stdout).to).toEqual(row.reached);
      // Two sends of the row: each reached peer holds two messages, every other none.
      const twice = Object.fromEntries(
        Object.entries(expectedCounts(row)).map(([label, count]) => [label, count * 2]),
      );
      expect(await mailCounts(roster, ids)).toEqual(twice);
    }
  });
});
