// The loop brake with three real members: three MCP servers, each the child of its own engine
// process, bounce replies A→B→C→A through team_send and team_inbox. Past the conversation's budget
// (core's 12 messages in 10 minutes, across all three) the mail still arrives but is braked: the
// policy wakes no one for it, its receipt says why; the lead (a fourth member) gets one mail and
// the person one desktop alert (a notify-send on PATH that logs), whatever the bouncing after.
import { existsSync, readFileSync, watch } from "node:fs";
import path from "node:path";
import { BRAKE_WORDS, CONVERSATION_TURNS, decideDelivery } from "@muster/core";
import { describe, expect, it } from "vitest";
import {
  call,
  cleanupAfterEach,
  connect,
  fakeEngine,
  joinPeer,
  roster,
  SERVE,
  scratchUntil,
} from "../test/helpers.ts";

const cleanups = cleanupAfterEach();

/**
 * The file's lines once it has a first whole one. The desktop notifier is started detached (the
 * alert never waits for it), so its line lands some time after the send that raised it returns:
 * wait for the folder's own change events, never a fixed sleep (the test's timeout bounds it).
 */
function linesOnceWritten(file: string): Promise<string[]> {
  const read = () => (existsSync(file) ? readFileSync(file, "utf8") : "");
  return new Promise((resolve) => {
    const settle = () => {
      const text = read();
      if (!text.endsWith("\n")) return false;
      watcher.close();
      resolve(text.trim().split("\n"));
      return true;
    };
    const watcher = watch(path.dirname(file), () => settle());
    settle();
  });
}

describe("the loop brake across three real members", () => {
  it("A→B→C→A past the budget: mail arrives braked and wakes no one; lead and person told once", async () => {
    const work = scratchUntil(cleanups);
    const team = await roster(work.teamDir);
    const lead = await joinPeer(team, "lead");
    const alerts = path.join(work.bin, "alerts.log");
    fakeEngine(work.bin, "notify-send", `printf '%s\\n' "$*" >> "${alerts}"`);
    const env = {
      MUSTER_TEAM_DIR: work.teamDir,
      MUSTER_ATTENTION: "desktop",
      DISPLAY: ":99",
      PATH: `${work.bin}:${process.env.PATH ?? ""}`,
    };
    const labels = ["alice", "bob", "carol"];
    const clients = [];
    for (const label of labels) {
      // Each member its own engine process, the server its child: three real members.
      const engine = fakeEngine(
        path.join(work.bin, label),
        "claude",
        `"${process.execPath}" "${SERVE}"`,
      );
      const served = await connect(engine, [], { ...env, MUSTER_LABEL: label });
      cleanups.push(() => served.close());
      clients.push(served.client);
      expect((await call(served.client, "team_roster")).text).toMatch(
        `joined the team as ${label}`,
      );
    }
    expect((await call(clients[0]!, "team_lead", { to: "lead" })).isError).toBe(false);

    const first = await call(clients[0]!, "team_send", { to: "bob", message: "turn 0" });
    expect(first.isError).toBe(false);
    const braked: boolean[] = [];
    const turns = CONVERSATION_TURNS + 3;
    for (let turn = 1; turn < turns; turn += 1) {
      // The one who got the last message reads it and answers the next in the ring.
      const reader = clients[turn % 3]!;
      const inbox = await call(reader, "team_inbox");
      const messages = inbox.structured.messages as {
        id: string;
        braked?: boolean;
        body: string;
      }[];
      expect(messages.map((message) => message.body)).toEqual([`turn ${turn - 1}`]);
      const got = messages[0]!;
      braked[turn - 1] = got.braked === true;
      // What every door decides for it (core's policy): a braked message wakes no one, whatever
      // its hop count says (replies sent without reply_to carry no hops; a conversation counts
      // what the roster saw).
      const delivery = decideDelivery(
        { ...got, hops: 0 },
        { armed: true, wake: true },
        [],
        Date.now(),
      );
      expect(delivery).toMatchObject(
        got.braked ? { wake: false, reason: "loop-brake" } : { wake: true },
      );
      const sent = await call(reader, "team_send", {
        to: labels[(turn + 1) % 3],
        message: `turn ${turn}`,
        reply_to: got.id,
      });
      expect(sent.isError).toBe(false);
    }
    // Mail kept arriving every turn; the first 12 of the conversation may wake, the rest do not.
    expect(braked).toEqual([
      ...Array(CONVERSATION_TURNS).fill(false),
      ...Array(turns - 1 - CONVERSATION_TURNS).fill(true),
    ]);
    // The last one's receipt says why, for its sender's --wait.
    const last = await team.receive(
      (await team.read()).ok
        ? ((await team.read()) as { members: { id: string; label: string }[] }).members.find(
            (m) => m.label === labels[turns % 3],
          )!.id
        : "",
    );
    const lastId = last.ok ? last.messages[0]!.id : "";
    const receipt = await team.receipt(lastId);
    expect(receipt.ok && receipt.recipients[0]?.wakeHeld).toMatchObject({
      how: "loop-brake",
      words: BRAKE_WORDS,
    });
    // The lead: one mail, from muster, naming the three.
    const told = await team.receive(lead);
    expect(
      told.ok && told.messages.map((message) => [message.from.label, message.from.guest]),
    ).toEqual([["muster", true]]);
    expect(told.ok && told.messages[0]!.body).toMatch(
      /^Loop brake: a conversation among .*alice.*bob.*carol|^Loop brake: a conversation among /,
    );
    // The person: one alert (its notifier was started before the send that braked returned; the
    // brake's once is the roster's claim, which the lead's one mail above shows).
    const shown = await linesOnceWritten(alerts);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatch(/muster: Loop brake: a conversation among/);
  }, 60_000);
});
