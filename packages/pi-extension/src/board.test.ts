// The task board inside the real pi host (RPC, faux model, throwaway HOME): the lead adds cards and
// names itself lead with /team board; the other session's model lists them with team_cards, claims
// two with team_claim, finishes one with team_done and asks about the other with team_ask, and
// the lead gets the notice and the question as mail.
// Whole real pi sessions: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.

import { LONG_TESTS } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import type { PiRecord } from "../test/pi-rpc.js";
import { isMail, joined, removeScratch, team, toolEnd } from "../test/team.js";

afterAll(removeScratch);

const text = (record: PiRecord) => JSON.stringify(record.result);

describe.skipIf(!LONG_TESTS)("the board in pi", () => {
  it("the lead adds cards; another session claims and finishes one and asks about the other by tool; the lead gets the notice and the question as mail", async (test) => {
    const shared = team(test);
    const start = (label: string, script: unknown[]) => shared.start({ label, script });
    const lead = start("lead", [{ text: "noted" }]);
    const bob = start("bob", [
      { tool: "team_cards", args: {} },
      { tool: "team_claim", args: { card: "c2" } },
      { tool: "team_claim", args: { card: "c1" } },
      { tool: "team_done", args: { card: "c1", note: "merged in #7" } },
      { tool: "team_ask", args: { card: "c2", question: "which docs, the README or the site?" } },
      { text: "done" },
    ]);
    await Promise.all([joined(lead), joined(bob)]);
    // The lead lets mail wake it, so the notice arrives as a message at once.
    await lead.prompt("/team join lead --wake");

    await lead.prompt("/team board add fix the login redirect");
    expect(lead.notices().at(-1)).toBe("Added c1: fix the login redirect");
    await lead.prompt("/team board add write the docs");
    await lead.prompt("/team board lead lead");
    expect(lead.notices().at(-1)).toBe("The lead is lead.");

    await bob.prompt("take a card");
    expect(text(await toolEnd(bob, "team_cards"))).toContain("c1 [open] fix the login redirect");
    await bob.waitFor(
      (record) =>
        record.type === "tool_execution_end" &&
        record.toolName === "team_done" &&
        text(record).includes("Finished c1"),
      "team_done to finish c1",
    );
    const ends = bob.records.filter((record) => record.type === "tool_execution_end");
    const claims = ends.filter((record) => record.toolName === "team_claim").map(text);
    expect(claims[0]).toContain("Claimed c2");
    expect(claims[1]).toContain("Claimed c1");

    // The footer shows the cards bob holds: two, then the one left after the finish.
    const footer = (record: PiRecord) =>
      record.method === "setStatus" && record.statusKey === "muster-card"
        ? String(record.statusText)
        : undefined;
    const both = await bob.waitFor(
      (record) => footer(record)?.endsWith("+1") === true,
      "two cards in the footer",
    );
    await bob.waitFor(
      (record) =>
        footer(record) === "▣ c2" && bob.records.indexOf(record) > bob.records.indexOf(both),
      "the footer to show c2 after the finish",
    );
    const mail = await lead.waitFor(isMail, "the finish notice to reach the lead");
    expect(
      (mail.message as { details: { body: string; from: { label: string } } }).details,
    ).toMatchObject({
      from: { label: "bob" },
      body: 'bob finished c1 "fix the login redirect": merged in #7',
    });
    // bob holds c2, so the question goes to its creator, the lead, as mail naming the card.
    const asked = await toolEnd(bob, "team_ask");
    expect(text(asked)).toContain("Asked lead about c2; the answer comes as team mail.");
    const question = await lead.waitFor(
      (record) =>
        isMail(record) &&
        (record.message as { details: { body: string } }).details.body.includes("asks about"),
      "the question to reach the lead",
    );
    expect((question.message as { details: { body: string } }).details.body).toBe(
      'bob asks about c2 "write the docs": which docs, the README or the site?',
    );
    await lead.prompt("/team board");
    expect(lead.notices().at(-1)).toBe("Lead: lead.\nc2 [held by bob] write the docs");
  });

  it("a pi lead lays out dependent work itself: team_add with after, /team board add --after, team_lead; a card blocked by an unfinished one cannot be claimed", async (test) => {
    const shared = team(test);
    const lead = shared.start({
      label: "lead",
      script: [
        { tool: "team_add", args: { title: "design the schema" } },
        {
          tool: "team_add",
          args: { title: "write the migration", body: "in db/", after: ["c1"] },
        },
        { tool: "team_lead", args: { label: "lead" } },
        { text: "laid out" },
      ],
    });
    const bob = shared.start({
      label: "bob",
      script: [{ tool: "team_claim", args: { card: "c2" } }, { text: "waiting" }],
    });
    await Promise.all([joined(lead), joined(bob)]);
    await lead.prompt("lay out the work");
    expect(text(await toolEnd(lead, "team_add", 0))).toContain("Added c1: design the schema");
    expect(text(await toolEnd(lead, "team_add", 1))).toContain(
      "Added c2: write the migration (after c1)",
    );
    expect(text(await toolEnd(lead, "team_lead"))).toContain("The lead is lead.");
    await lead.prompt("/team board add ship it --after c1,c2");
    expect(lead.notices().at(-1)).toBe("Added c3: ship it (after c1, c2)");
    await lead.prompt("/team board add --after c9 nothing");
    expect(lead.notices().at(-1)).toMatch(/^Not added: .*c9/);

    await bob.prompt("take c2");
    expect(text(await toolEnd(bob, "team_claim"))).toMatch(/Not claimed: .*c1/);
    await lead.prompt("/team board");
    expect(lead.notices().at(-1)).toBe(
      [
        "Lead: lead.",
        "c1 [open] design the schema",
        "c2 [blocked by c1] write the migration",
        "c3 [blocked by c1, c2] ship it",
      ].join("\n"),
    );
  });
});
