// A heartbeat's re-join that fails for a passing cause is asked again at the next beat. The team
// folder deleted under a running session while its heartbeat runs (a `rm -r` half done: files
// left, no marker) made the re-join fail as unwritable, and the session then stayed off the team
// for good: the heartbeat only beats a session whose standing is ok. In process: TeamSession on
// a real folder roster, the beats called by hand (the whole pi is extension.test.ts's).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openTestTeam } from "@muster/test-team";
import { afterAll, describe, expect, it } from "vitest";
import { type Host, TeamSession } from "./_team.js";

const scratch = mkdtempSync(path.join(tmpdir(), "muster-pi-rejoin-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const host = (warnings: string[]): Host => ({
  deliver: () => undefined,
  status: () => undefined,
  warn: (line) => warnings.push(line),
  delivered: new Set(),
});

const labels = async (dir: string) => {
  const read = await (await openTestTeam(dir)).read({ all: true });
  return read.ok ? read.members.map((member) => member.label) : read.error;
};

describe("a heartbeat's re-join", () => {
  it("refused while the folder was half deleted, is asked again at the next beat", async () => {
    const dir = path.join(scratch, "team");
    const warnings: string[] = [];
    const session = new TeamSession({ id: "pi-rejoin", cwd: scratch }, host(warnings));
    session.roster = await openTestTeam(dir);
    expect(await session.join("keeper")).toMatchObject({ ok: true });

    // The deletion half done when the beat runs: a file left, no marker, no sessions/ folder.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    writeFileSync(path.join(dir, "left.json"), "{}\n");
    await session.heartbeat();
    expect(session.standing).toMatchObject({ ok: false, label: "keeper" });

    // The deletion finished: the next beat makes the folder again and joins.
    rmSync(dir, { recursive: true, force: true });
    await session.heartbeat();
    expect(session.standing).toMatchObject({ ok: true, label: "keeper" });
    expect(await labels(dir)).toEqual(["keeper"]);
    await session.leave();
  });

  it("refused because another live session holds the label, is not asked again by the beat", async () => {
    const dir = path.join(scratch, "held");
    const roster = await openTestTeam(dir);
    const joinAs = (id: string, label: string) =>
      roster.join({
        id,
        label,
        agent: "shell",
        pid: process.pid,
        cwd: scratch,
        liveness: "process",
        watching: { armed: false, wake: false },
      });
    const session = new TeamSession({ id: "pi-held", cwd: scratch }, host([]));
    session.roster = roster;
    expect(await session.join("keeper")).toMatchObject({ ok: true });
    // Taken over meanwhile by a live session: the beat finds itself lost and asks, and is refused.
    await roster.leave("pi-held");
    const other = await joinAs("other", "keeper");
    expect(other, JSON.stringify(other)).toMatchObject({ ok: true });
    await session.heartbeat();
    expect(session.standing).toMatchObject({ ok: false, reason: "label-held" });
    await session.heartbeat();
    expect(session.standing).toMatchObject({ ok: false, reason: "label-held" });
    expect(await labels(dir)).toEqual(["keeper"]);
  });
});
