// One agent, one member, through every door pi offers: the extension's member is pi's session, and
// a `muster` command that pi's own bash tool runs is that same member (pi names its session to the
// commands it runs), not a second one made of pi's pid. Real pi (RPC, faux model, throwaway HOME),
// the built CLI.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { joined, removeScratch, team, toolEnd } from "../test/team.js";

afterAll(removeScratch);

const MUSTER = path.resolve(import.meta.dirname, "..", "..", "cli", "dist", "muster.js");

describe("pi's own shell is the pi member", () => {
  it("muster join from pi's bash tool, under MUSTER_LABEL=lead, is the session already on the team as lead", async (test) => {
    const shared = team(test);
    const out = path.join(shared.cwd, "join.json");
    const sessionId = crypto.randomUUID();
    const pi = shared.start({
      sessionId,
      env: { MUSTER_LABEL: "lead" },
      script: [
        {
          tool: "bash",
          args: { command: `'${process.execPath}' '${MUSTER}' join lead --json > '${out}' 2>&1` },
        },
        { text: "joined" },
      ],
    });
    await joined(pi);
    await pi.prompt("join from your shell");
    await toolEnd(pi, "bash");
    const answer = readFileSync(out, "utf8");
    expect(JSON.parse(answer), answer).toMatchObject({
      ok: true,
      id: sessionId,
      label: "lead",
      asked: false,
    });
    const members = await shared.members();
    expect(members.map((member) => [member.id, member.label])).toEqual([[sessionId, "lead"]]);
  });
});
