// A reply's hops are found one way, by the send itself: one more than the message it answers, as
// the sender received it (core's `replyHops` over the roster's `received`). No door looks them up.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Roster } from "@muster/roster";
import { heartbeatMember as member } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTeam, sendMail } from "./index.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-send-hops-")));
let roster: Roster;

beforeAll(async () => {
  const opened = await openTeam({ dir: path.join(scratch, "team") });
  if (!opened.ok) throw new Error(opened.error);
  roster = opened.roster;
  for (const [id, label] of [
    ["a1", "alice"],
    ["b1", "bob"],
  ] as const)
    expect(await roster.join(member(id, label))).toMatchObject({ ok: true });
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Send as `from`, replying to `replyTo`; the id sent and the hops its recipient holds. */
async function send(from: string, to: string, replyTo?: string) {
  const sent = await sendMail(roster, { labels: [to], from, body: "hi", urgent: false, replyTo });
  if (!sent.ok) throw new Error(sent.error);
  const [recipient] = sent.recipients;
  const held = await roster.received(recipient!.id, sent.id);
  return { id: sent.id, hops: held?.hops };
}

describe("a reply's hops", () => {
  it("are one more than the message answered, each way of a thread", async () => {
    const first = await send("a1", "bob");
    expect(first.hops).toBe(0);
    const reply = await send("b1", "alice", first.id);
    expect(reply.hops).toBe(1);
    const again = await send("a1", "bob", reply.id);
    expect(again.hops).toBe(2);
  });

  it("count a reply to a message the sender never received as the first reply", async () => {
    const first = await send("a1", "bob");
    // alice did not receive her own message: its hops are not hers to know.
    expect((await send("a1", "bob", first.id)).hops).toBe(1);
  });
});
