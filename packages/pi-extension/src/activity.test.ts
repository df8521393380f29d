// A real pi 1.6.0 (RPC mode, the faux model) with the muster extension: its own events are its
// member's activity — idle once started, working through a turn, needs-you while a ui.confirm
// waits on the person (and working again once answered), idle when the turn settles; and a pi
// sending to it mid-turn is told so.
// Whole real pi sessions: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { joined, removeScratch, team } from "../test/team.js";

const TOOLS = path.join(import.meta.dirname, "..", "test", "activity-tools.ts");
afterAll(removeScratch);

describe.skipIf(!LONG_TESTS)("a pi member's activity from pi's own events", () => {
  it("idle → working (a turn held mid-tool) → idle", async (test) => {
    const folk = team(test);
    const hold = path.join(folk.cwd, "release");
    const pi = folk.start({
      label: "alice",
      args: ["-e", TOOLS],
      script: [{ tool: "hold", args: {} }, { text: "done" }],
      env: { MUSTER_HOLD_FILE: hold },
    });
    const carol = folk.start({ label: "carol" });
    await Promise.all([joined(pi), joined(carol)]);
    const activity = async () =>
      (await folk.members()).find((member) => member.label === "alice")?.activity;
    await eventually(activity, (now) => now?.state === "idle", "idle once started");
    await pi.prompt("work");
    const working = await eventually(activity, (now) => now?.state === "working", "working");
    expect(working?.signal).toMatch(/^pi\/(agent-start|turn-start|tool-start)$/);
    // A sender is told what alice is doing, and so when she will see it (core's recipientLine).
    await carol.prompt("/team send alice the build is green");
    expect(carol.notices().at(-1)).toBe(
      "Sent to alice. alice is working: will see it when this turn ends.",
    );
    writeFileSync(hold, "");
    const settled = await eventually(activity, (now) => now?.state === "idle", "idle again");
    expect(settled).toMatchObject({ signal: "pi/agent-settled" });
    expect(Date.parse(settled!.since)).toBeGreaterThanOrEqual(Date.parse(working!.since));
  }, 60_000);

  it("a ui.confirm waiting on the person is needs-you; answered, the turn works on", async (test) => {
    const folk = team(test);
    const pi = folk.start({
      label: "bob",
      args: ["-e", TOOLS],
      script: [{ tool: "ask", args: {} }, { text: "done" }],
    });
    await joined(pi);
    const activity = async () => (await folk.members())[0]?.activity;
    await pi.prompt("check with the person");
    const request = await pi.waitFor(
      (record) => record.type === "extension_ui_request" && record.method === "confirm",
      "the confirm dialog",
    );
    const waiting = await eventually(activity, (now) => now?.state === "needs-you", "needs-you");
    expect(waiting).toMatchObject({ signal: "pi/ui-prompt-start", resume: "working" });
    pi.child.stdin!.write(
      `${JSON.stringify({ type: "extension_ui_response", id: request.id, confirmed: true })}\n`,
    );
    await eventually(activity, (now) => now?.state === "idle", "idle after the answer");
  }, 60_000);
});
