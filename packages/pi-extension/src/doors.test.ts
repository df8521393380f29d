// Every door into the team, in the real pi host: a typed join, a send, the heartbeat, a session with
// no team folder. Each goes through @muster/core's join rules, reads membership from the roster
// record, and shows a refusal with its fix. The roster's files are changed under a running pi the
// way another process (a prune, a takeover, a broken disk) would change them.
// Whole real pi sessions: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { randomUUID } from "node:crypto";
import { chmodSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { NO_ROSTER_FIX } from "@muster/core";
import { processStart } from "@muster/node";
import { eventually, LONG_TESTS } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { isMail, joined, promptUntil, removeScratch, team } from "../test/team.js";

afterAll(removeScratch);

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!LONG_TESTS).concurrent("the doors into the team", () => {
  it("a typed /team join asks the roster even when it cannot be read: a rename, then listening changes, land", async (test) => {
    const shared = team(test);
    const id = randomUUID();
    const pi = shared.start({ label: "alice", sessionId: id, unprivileged: true });
    await joined(pi);
    // The roster cannot be listed any more (no read permission), but records can still be written.
    chmodSync(path.join(shared.dir, "sessions"), 0o300);
    test.onTestFinished(() => chmodSync(path.join(shared.dir, "sessions"), 0o700));
    await pi.prompt("/team");
    expect(pi.notices().at(-1)).toMatch(/The roster cannot be read/);

    await pi.prompt("/team join bob --wake");
    expect(pi.notices().at(-1)).toBe("On the team as bob; mail: wakes.");
    expect(shared.record(id)).toMatchObject({
      label: "bob",
      watching: { armed: true, wake: true },
    });
    expect(readdirSync(path.join(shared.dir, "labels"))).toEqual(["bob.json"]);

    await pi.prompt("/team join bob --no-listen");
    expect(pi.notices().at(-1)).toBe("On the team as bob; mail: off.");
    expect(shared.record(id)).toMatchObject({ watching: { armed: false, wake: false } });
    await pi.prompt("/team join bob --wake");
    expect(shared.record(id)).toMatchObject({ watching: { armed: true, wake: true } });
  });

  it("a send reads membership from the record: a pruned record is joined again under MUSTER_LABEL, a refused join sends as a guest and says so", async (test) => {
    // No heartbeat during the test: the send is the door that finds the record gone.
    const shared = team(test);
    const keeperId = randomUUID();
    const keeper = shared.start({
      sessionId: keeperId,
      env: { MUSTER_LABEL: "keeper", MUSTER_HEARTBEAT_MS: "600000" },
    });
    const bob = shared.start({ label: "bob", env: { MUSTER_HEARTBEAT_MS: "600000" } });
    await Promise.all([joined(keeper), joined(bob)]);
    // The join's session-start activity is written after the join lands: wait for it, or the
    // record removed below (by hand, not under the member's lock as prune removes it) is written
    // back by that change.
    await eventually(
      async () => shared.record(keeperId),
      (record) => (record as { activity?: unknown } | undefined)?.activity !== undefined,
      "keeper's session-start activity",
    );

    rmSync(path.join(shared.dir, "sessions", `${keeperId}.json`));
    await keeper.prompt("/team");
    expect(keeper.notices().at(-1)).toMatch(/^You are not on the team;/);
    await keeper.prompt("/team send bob the build is green");
    expect(keeper.notices().at(-1)).toMatch(
      /^Sent to bob\. bob is (idle|starting): will see it at (its|their) next turn/,
    );
    expect(shared.record(keeperId)).toMatchObject({ label: "keeper" });
    const mail = await promptUntil(bob, isMail, "keeper's mail"); // quiet mail: at the next turn
    expect((mail.message as { details: { from: unknown } }).details.from).toMatchObject({
      label: "keeper",
    });
    expect(
      (mail.message as { details: { from: { guest?: boolean } } }).details.from.guest,
    ).toBeUndefined();

    // A second session asks for "bob": refused; its send still goes, marked, and it is told why.
    const second = shared.start({ label: "bob", env: { MUSTER_HEARTBEAT_MS: "600000" } });
    await second.waitFor((record) => record.notifyType === "warning", "the refusal");
    await second.prompt("/team send keeper are you done?");
    expect(second.notices().at(-1)).toMatch(
      /^Sent to keeper as a guest \(not on the team\): Could not join as "bob": label "bob" is held by a live pi session \(pid \d+\); only that session's stop frees "bob", or join under another name\.$/,
    );
    const guest = await promptUntil(keeper, isMail, "the guest's mail");
    expect((guest.message as { details: { from: unknown } }).details.from).toMatchObject({
      label: "bob (not on the team)",
      guest: true,
    });
  });

  it("a lost label: the heartbeat re-asks with the record's listening choice; taken by another, one refusal with its fix, no loop", async (test) => {
    const shared = team(test);
    const id = randomUUID();
    const lead = shared.start({ label: "lead", sessionId: id });
    await joined(lead);
    const opened = await shared.members();
    expect(opened).toMatchObject([{ label: "lead", holdsLabel: true }]);

    // Mail turned off in the record (as `muster join --no-listen` would), then the claim lost.
    await shared.rewrite(id, { watching: { armed: false, wake: false } });
    rmSync(path.join(shared.dir, "labels", "lead.json"));
    const rejoined = await eventually(
      () => shared.members(),
      (members) => members[0]?.holdsLabel === true,
      "the re-join",
    );
    expect(rejoined).toMatchObject([{ label: "lead", watching: { armed: false, wake: false } }]);

    // A peer mails "lead" by its label: renaming now has a cost the fix must name.
    const roster = await shared.roster();
    const sent = await roster.send({
      from: randomUUID(),
      to: "lead",
      body: "status?",
      guest: "ci",
    });
    expect(sent.ok).toBe(true);
    await lead.prompt("/team inbox");
    expect(lead.notices().at(-1)).toMatch(/status\?/);

    // Another session takes the label while this record stays fresh.
    const thief = randomUUID();
    const now = new Date().toISOString();
    const pidStart = processStart(process.pid);
    writeFileSync(
      path.join(shared.dir, "sessions", `${thief}.json`),
      `${JSON.stringify({ v: 1, id: thief, label: "lead", agent: "codex", pid: process.pid, pidStart, watching: { armed: true, wake: false }, liveness: "process", joinedAt: now, heartbeatAt: now })}\n`,
    );
    writeFileSync(
      path.join(shared.dir, "labels", "lead.json"),
      `${JSON.stringify({ v: 1, id: thief, label: "lead", at: now, pid: process.pid, pidStart })}\n`,
    );
    const line =
      /^Could not join as "lead": label "lead" is held by a live codex session \(pid \d+\); only that session's stop frees "lead", or join under another name \(peers address you as "lead", so tell them the new one\)\.$/;
    await lead.waitFor(
      (record) => record.notifyType === "warning" && line.test(String(record.message)),
      "the refusal",
    );
    await wait(1500); // five heartbeats
    const warnings = lead.records.filter((record) => record.notifyType === "warning");
    expect(warnings).toHaveLength(1);
    expect(lead.statuses().at(-1)).toMatch(/^muster: Could not join as "lead": .*tell them/);
    await lead.prompt("/team status");
    expect(lead.notices().at(-1)!.split("\n")[0]).toMatch(line);
  });

  it("the board's lead whose label is taken is told that peers address it by that label", async (test) => {
    const shared = team(test);
    const boss = shared.start({ label: "boss" });
    await joined(boss);
    await boss.prompt("/team board lead boss");
    expect(boss.notices().at(-1)).toBe("The lead is boss.");
    // Nobody has mailed "boss": only the board says peers address it by that label.
    const thief = randomUUID();
    const now = new Date().toISOString();
    const pidStart = processStart(process.pid);
    rmSync(path.join(shared.dir, "labels", "boss.json"));
    writeFileSync(
      path.join(shared.dir, "sessions", `${thief}.json`),
      `${JSON.stringify({ v: 1, id: thief, label: "boss", agent: "codex", pid: process.pid, pidStart, watching: { armed: true, wake: false }, liveness: "process", joinedAt: now, heartbeatAt: now })}\n`,
    );
    writeFileSync(
      path.join(shared.dir, "labels", "boss.json"),
      `${JSON.stringify({ v: 1, id: thief, label: "boss", at: now, pid: process.pid, pidStart })}\n`,
    );
    await boss.waitFor(
      (record) =>
        record.notifyType === "warning" &&
        /\(peers address you as "boss", so tell them the new one\)\.$/.test(String(record.message)),
      "the refusal naming the cost of renaming",
    );
  });

  it("with no team folder, /team join and team_send say so with the fix", async (test) => {
    const shared = team(test);
    const notAFolder = path.join(shared.scratch, `not-a-folder-${randomUUID()}`);
    writeFileSync(notAFolder, "");
    const pi = shared.start({
      label: "lost",
      env: { MUSTER_TEAM_DIR: notAFolder },
      script: [{ tool: "team_send", args: { to: "bob", message: "hi" } }, { text: "done" }],
    });
    await pi.waitFor((record) => record.notifyType === "warning", "the start-up warning");
    await pi.prompt("/team join lost");
    expect(pi.notices().at(-1)).toBe(
      `Could not join as "lost": no team roster is configured here; ${NO_ROSTER_FIX}.`,
    );
    expect(pi.statuses().at(-1)).toContain(NO_ROSTER_FIX);
    await pi.prompt("tell bob");
    const result = await pi.waitFor(
      (record) => record.type === "tool_execution_end" && record.toolName === "team_send",
      "team_send",
    );
    expect(JSON.stringify(result.result)).toContain(`Not sent: `);
    expect(JSON.stringify(result.result)).toContain(NO_ROSTER_FIX);
  });
});
