// MCP's team_send over the table every door answers the same way (`@muster/test-team`'s
// SEND_TABLE), as a Claude Code member: `a,typo` sends nothing and names the typo with a
// suggestion, as the CLI and pi do; a label given twice is one address. Each row is sent both as
// one string and as a list.
import { expectedCounts, joinSendPeers, mailCounts, SEND_TABLE } from "@muster/test-team";
import { describe, expect, it } from "vitest";
import {
  call,
  cleanupAfterEach,
  connect,
  fakeEngine,
  roster,
  SERVE,
  scratchUntil,
} from "../test/helpers.ts";

const cleanups = cleanupAfterEach();

async function sendTo(to: string | string[]) {
  const work = scratchUntil(cleanups);
  const team = await roster(work.teamDir);
  const ids = await joinSendPeers(team);
  const claude = fakeEngine(work.bin, "claude", `"${process.execPath}" "${SERVE}"`);
  const connected = await connect(claude, [], {
    MUSTER_TEAM_DIR: work.teamDir,
    MUSTER_LABEL: "lead",
  });
  cleanups.push(() => connected.close());
  const sent = await call(connected.client, "team_send", { to, message: "hello" });
  return { sent, counts: await mailCounts(team, ids) };
}

describe("team_send answers the one send table", () => {
  for (const row of SEND_TABLE)
    it.each([
      ["as one string", row.to],
      ["as a list", row.to.split(",")],
    ])(`${row.name} (%s)`, async (_how, to) => {
      const { sent, counts } = await sendTo(to);
      expect(counts).toEqual(expectedCounts(row));
      if (row.refused) {
        expect(sent.isError).toBe(true);
        expect(sent.text).toMatch(/^Nothing was sent\.$/m);
        expect(sent.text).toContain(`nobody holds the label "${row.refused.label}"`);
        expect(sent.structured.recipients).toEqual([
          expect.objectContaining({
            label: row.refused.label,
            ok: false,
            reason: "no-live-holder",
          }),
        ]);
        const [target] = sent.structured.recipients as { suggestion?: string }[];
        expect(target?.suggestion).toBe(row.refused.suggestion);
        if (row.refused.suggestion)
          expect(sent.text).toContain(`did you mean "${row.refused.suggestion}"?`);
      } else {
        expect(sent.isError).toBe(false);
        const recipients = sent.structured.recipients as { label: string }[];
        expect(recipients.map((each) => each.label)).toEqual(row.reached);
      }
    });
});
