// pi's team_send over the table every door answers the same way (`@muster/test-team`'s
// SEND_TABLE): the tool's own run, on a pi session joined to a real team folder (the host's
// screen is a recorder; a whole real pi is the long doors tests). `a,typo` sends nothing and names
// the typo with a suggestion, as the CLI and MCP do.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  expectedCounts,
  joinSendPeers,
  mailCounts,
  openTestTeam,
  SEND_TABLE,
} from "@muster/test-team";
import { afterAll, describe, expect, it } from "vitest";
import { MAIL_TOOLS } from "./_mail-tools.js";
import { type Host, TeamSession } from "./_team.js";
import type { ToolContext } from "./_tool.js";

const scratch = mkdtempSync(path.join(tmpdir(), "muster-pi-send-table-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const host = (): Host => ({
  deliver: () => undefined,
  status: () => undefined,
  warn: () => undefined,
  delivered: new Set(),
});

const send = MAIL_TOOLS.find((tool) => tool.name === "team_send")!;

describe("pi's team_send answers the one send table", () => {
  it.each(SEND_TABLE)("$name", async (row) => {
    const dir = mkdtempSync(path.join(scratch, "team-"));
    const roster = await openTestTeam(dir);
    const ids = await joinSendPeers(roster);
    const session = new TeamSession({ id: `pi-${path.basename(dir)}`, cwd: scratch }, host());
    session.roster = roster;
    expect(await session.join("lead")).toMatchObject({ ok: true });
    const context = { team: () => session } as unknown as ToolContext;
    const answer = await send.run({ to: row.to, message: "hello" }, context);
    await session.leave();
    expect(await mailCounts(roster, ids)).toEqual(expectedCounts(row));
    if (row.refused) {
      expect(answer.text).toMatch(/^Not sent: /);
      expect(answer.text).toContain(`nobody holds the label "${row.refused.label}"`);
      const receipt = answer.details?.receipt as {
        ok: boolean;
        label?: string;
        suggestion?: string;
      };
      expect(receipt).toMatchObject({
        ok: false,
        reason: "no-live-holder",
        label: row.refused.label,
      });
      expect(receipt.suggestion).toBe(row.refused.suggestion);
      if (row.refused.suggestion)
        expect(answer.text).toContain(`did you mean "${row.refused.suggestion}"?`);
    } else {
      expect(answer.text).toMatch(
        new RegExp(`^Sent \\(id \\S+\\) to ${row.reached.join(", ")}\\.`),
      );
    }
  });
});
