// No wake is lost inside pi: mail past the wake rate (MUSTER_WAKE_PER_MINUTE) to an idle pi member
// that takes wakes is held, not slipped quietly into a next turn that may never come. Its receipt
// says so (`wake-held`, until when), `muster send --wait` tells the sender, and pi is woken for it
// once the window frees; a turn that starts meanwhile shows it instead, and then nothing wakes pi
// for it. Real pi (RPC, faux model, throwaway HOME), the built CLI as the sender.
// Long (each waits out a minute, ~65 s, side by side): behind MUSTER_LONG_TESTS.
import { spawn } from "node:child_process";
import path from "node:path";
import { eventually, LONG_TESTS } from "@muster/test-support";
import { joinAsThisProcess } from "@muster/test-team";
import { afterAll, describe, expect, it } from "vitest";
import type { Pi } from "../test/pi-rpc.js";
import { isMail, joined, removeScratch, type TestEnd, team } from "../test/team.js";

afterAll(removeScratch);

const MUSTER = path.resolve(import.meta.dirname, "..", "..", "cli", "dist", "muster.js");

type WaitRow = {
  reached: string;
  met: boolean;
  wakeHeld?: { reason: string; words: string; retryAfter: string };
};

/** A pi member that takes wakes, at `perMinute`, and a sender on its team (this process). */
async function sleeper(test: TestEnd, perMinute: string) {
  const shared = team(test);
  const pi = shared.start({
    label: "sleeper",
    env: { MUSTER_MAIL: "wakes", MUSTER_WAKE_PER_MINUTE: perMinute },
  });
  await joined(pi);
  const roster = await shared.roster();
  const sender = await joinAsThisProcess(roster, "sender");
  const sleeperId = (await shared.members()).find((member) => member.label === "sleeper")!.id;
  /** `muster send sleeper <body> --wait --json`: its wait row for the sleeper, and its exit. */
  const send = (body: string) =>
    new Promise<{ id: string; row: WaitRow; status: number | null }>((resolve, reject) => {
      const args = ["send", "sleeper", body, "--id", sender, "--wait", "--timeout", "4s", "--json"];
      const child = spawn(process.execPath, [MUSTER, ...args], {
        cwd: shared.cwd,
        env: { ...process.env, MUSTER_TEAM_DIR: shared.dir },
        stdio: ["ignore", "pipe", "ignore"],
      });
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.once("error", reject);
      child.once("close", (status) => {
        try {
          const document = JSON.parse(stdout) as { id: string; wait: { recipients: WaitRow[] } };
          resolve({ id: document.id, row: document.wait.recipients[0]!, status });
        } catch (error) {
          reject(error);
        }
      });
    });
  const entry = async (messageId: string) => {
    const receipt = await roster.receipt(messageId);
    return receipt.ok ? receipt.recipients.find((each) => each.id === sleeperId) : undefined;
  };
  return { pi, send, entry };
}

const starts = (pi: Pi) => pi.records.filter((record) => record.type === "agent_start").length;
const bodies = (pi: Pi) =>
  pi.records
    .filter(isMail)
    .map((record) => (record.message as { details: { body: string } }).details.body);

describe.skipIf(!LONG_TESTS).concurrent("the wake rate inside pi", () => {
  it("mail past the rate is held, the sender told when, and pi woken for it after the window", async (test) => {
    const { pi, send, entry } = await sleeper(test, "2");
    const sent = [await send("one"), await send("two"), await send("three")];
    // The first two woke pi (shown at once); the third is held, and --wait says until when.
    expect(sent.map((each) => each.status)).toEqual([0, 0, 1]);
    const held = sent[2]!;
    expect(held.row).toMatchObject({
      reached: "written",
      met: false,
      wakeHeld: { reason: "rate-limited", words: "2 wakes in the last minute" },
    });
    const retryAfter = Date.parse(held.row.wakeHeld!.retryAfter);
    expect(retryAfter).toBeGreaterThan(Date.now());
    for (const each of sent.slice(0, 2))
      expect((await entry(each.id))?.phases.woke).toMatchObject({ how: "pi" });
    const mark = await entry(held.id);
    expect(mark?.wakeHeld).toMatchObject({ how: "pi", reason: "rate-limited" });
    expect(mark?.phases.woke).toBeUndefined();
    await pi.waitFor(() => bodies(pi).length === 2, "the two woken mails in pi");
    expect(bodies(pi)).toEqual(["one", "two"]);
    const before = starts(pi);
    // Held, not lost: once the window frees, pi is woken for it (woke is marked, then the ack).
    const later = await eventually(
      () => entry(held.id),
      (each) => each?.phases.woke !== undefined && each.phases.acknowledged !== undefined,
      "the held mail woken after the window",
      { attempts: 900, intervalMs: 100 },
    );
    expect(Date.parse(later!.phases.woke!.at)).toBeGreaterThanOrEqual(retryAfter);
    expect(later?.phases).toMatchObject({ delivered: { how: "pi" }, acknowledged: {} });
    await pi.waitFor(() => starts(pi) > before, "pi to start a turn for it");
    await pi.waitFor(() => bodies(pi).length === 3, "the held mail in pi");
    expect(bodies(pi)).toEqual(["one", "two", "three"]);
  }, 150_000);

  it("a turn that starts while the wake is held shows the mail, and nothing wakes pi for it later", async (test) => {
    const { pi, send, entry } = await sleeper(test, "1");
    const [first, held] = [await send("one"), await send("two")];
    expect([first.status, held.status]).toEqual([0, 1]);
    expect(held.row.wakeHeld?.words).toBe("1 wake in the last minute");
    const retryAfter = Date.parse(held.row.wakeHeld!.retryAfter);
    // The user's own turn comes first: the held mail is in it.
    await pi.prompt("anything new?");
    const shown = await eventually(
      () => entry(held.id),
      (each) => each?.phases.acknowledged !== undefined,
      "the held mail shown in the user's turn",
      { attempts: 100, intervalMs: 100 },
    );
    expect(shown?.phases).toMatchObject({ delivered: { how: "pi" } });
    expect(bodies(pi)).toEqual(["one", "two"]);
    await pi.waitFor(
      () => pi.records.filter((record) => record.type === "agent_end").length >= starts(pi),
      "the user's turn to end",
    );
    const before = starts(pi);
    // Past the window (and a sweep after it): no wake for mail already shown.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, retryAfter - Date.now()) + 6_000),
    );
    expect(starts(pi)).toBe(before);
    expect((await entry(held.id))?.phases.woke).toBeUndefined();
    expect(bodies(pi)).toEqual(["one", "two"]);
  }, 150_000);
});
