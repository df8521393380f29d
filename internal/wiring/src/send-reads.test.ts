// What one send reads of the team: the whole team once (each read lists every record and label,
// and a teammate can flood both spaces), or not at all when the door hands it the read it made
// to find the sender. A real roster on a team folder, its reads counted.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Roster } from "@muster/roster";
import { heartbeatMember as member } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTeam, sendMail } from "./index.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-send-reads-")));
let roster: Roster;
const reads = { count: 0 };

beforeAll(async () => {
  const opened = await openTeam({ dir: path.join(scratch, "team") });
  if (!opened.ok) throw new Error(opened.error);
  const read = opened.roster.read.bind(opened.roster);
  roster = Object.assign(opened.roster, {
    read: (options?: { all?: boolean }) => {
      reads.count += 1;
      return read(options);
    },
  });
  for (const [id, label] of [
    ["a1", "alice"],
    ["b1", "bob"],
  ] as const)
    expect(await roster.join(member(id, label))).toMatchObject({ ok: true });
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const request = { labels: ["bob"], from: "a1", body: "hello", urgent: false };

describe("sendMail", () => {
  it("reads the whole team once, and says how the recipient will see it", async () => {
    reads.count = 0;
    const sent = await sendMail(roster, request);
    expect(sent).toMatchObject({ ok: true, recipients: [{ label: "bob", activity: "starting" }] });
    expect(reads.count).toBe(1);
  });

  it("reads it not at all given the door's own read", async () => {
    const read = await roster.read();
    reads.count = 0;
    const members = read.ok ? read.members : [];
    const sent = await sendMail(roster, { ...request, members });
    expect(sent).toMatchObject({ ok: true, recipients: [{ label: "bob" }] });
    expect(reads.count).toBe(0);
  });
});
