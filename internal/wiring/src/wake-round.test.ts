// The wake round every door runs, with fake doors on a real roster: each door's quirk is a row (pi
// counts its own wakes and hands quiet mail over; Codex's queue shares the member's slots; the
// nudger takes each message once; a Claude hook gives its claims back once the mail is read). The
// doors' own tests (codex-wake*, nudge, pi's mailbox, claude-tui) prove the effects; these prove
// the one sequence under them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_WAKE_POLICY } from "@muster/core";
import { EMPTY_WAKE_BOOK, type WakePlanPolicy } from "@muster/core/internal";
import { nodeFs, processFacts, processStart } from "@muster/node";
import { type Message, openRoster, type Roster } from "@muster/roster";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type WakeAnswer,
  type WakeBatch,
  type WakeDoor,
  type WakeHow,
  wakeRound,
} from "./wake-round.ts";

let dir: string;
let roster: Roster;
beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "muster-wake-round-"));
  const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: processFacts });
  if (!opened.ok) throw new Error(opened.error);
  roster = opened.roster;
  for (const [id, label] of [
    ["s1", "sender"],
    ["r1", "reader"],
  ] as const)
    await roster.join({
      id,
      label,
      agent: "codex",
      pid: process.pid,
      watching: { armed: true, wake: true },
      liveness: "process",
    });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const reader = { id: "r1", watching: { armed: true, wake: true } };
const quietReader = { id: "r1", watching: { armed: true, wake: false } };
const SELF = { pid: process.pid, start: processStart(process.pid) };
const policy = (
  count: WakePlanPolicy["count"],
  nextTurn: boolean,
  maxWakes = 2,
): WakePlanPolicy => ({
  ...DEFAULT_WAKE_POLICY,
  maxWakes,
  count,
  nextTurn,
});
const claims = (keep: boolean, prefix?: string) => ({ holder: "test", heldBy: SELF, keep, prefix });

/** The four doors' ways, with no effect of their own. */
const HOW: Record<string, WakeHow> = {
  pi: { by: "pi", policy: policy("own", true) },
  codex: { by: "codex-queue", policy: policy("shared", false), claims: claims(true) },
  nudge: { by: "nudge", policy: policy("own", false), claims: claims(true), once: true },
  hook: {
    by: "hook",
    policy: policy("none", true),
    claims: claims(false, "shown"),
    wokeBy: "claude-rewake",
  },
};

/** A fake door: takes its batch, records it, and answers as told. */
function fakeDoor(how: WakeHow, answer: (won: readonly Message[], batch: WakeBatch) => WakeAnswer) {
  const seen: WakeBatch[] = [];
  const door: WakeDoor & { seen: WakeBatch[] } = {
    how,
    book: EMPTY_WAKE_BOOK,
    seen,
    async wake(batch) {
      seen.push(batch);
      return answer(await batch.take(), batch);
    },
  };
  return door;
}
const woke = (won: readonly Message[]): WakeAnswer => ({
  ok: true,
  woke: won.map((message) => message.id),
});
const send = async (body: string, extra: { hops?: number } = {}) => {
  const sent = await roster.send({ from: "s1", to: "reader", body, ...extra });
  if (!sent.ok) throw new Error(sent.error);
  return sent.id;
};
const recipient = async (id: string) => {
  const receipt = await roster.receipt(id);
  return receipt.ok ? receipt.recipients.find((entry) => entry.id === "r1") : undefined;
};

describe("wakeRound: one sequence under every door", () => {
  it("pi counts its own wakes, one per message: past the rate the mail is held, its receipt says so once", async () => {
    const door = fakeDoor(HOW.pi!, (won) => ({
      ...woke(won),
      ack: won.map((message) => message.id),
    }));
    const ids = [await send("one"), await send("two"), await send("three")];
    const first = await wakeRound(roster, reader, door);
    expect(first.woke).toBe(true);
    expect(door.seen[0]?.wake.map((message) => message.id)).toEqual(ids.slice(0, 2));
    const held = await recipient(ids[2]!);
    expect(held?.wakeHeld).toMatchObject({ how: "pi", words: "2 wakes in the last minute" });
    expect(first.heldUntil).toBe(Date.parse(held!.wakeHeld!.retryAfter));
    expect((await recipient(ids[0]!))?.phases.woke?.how).toBe("pi");
    // The round after: still held, not marked again, nothing handed over.
    const second = await wakeRound(roster, reader, door);
    expect(second.steps).toMatchObject([{ id: ids[2], step: "hold", mark: false }]);
    expect(door.seen).toHaveLength(1);
  });

  it("pi hands quiet mail over for the next turn, with no wake", async () => {
    const door = fakeDoor(HOW.pi!, (_won, batch) => ({
      ok: true,
      woke: [],
      delivered: batch.nextTurn.map((message) => message.id),
    }));
    const id = await send("quiet");
    const round = await wakeRound(roster, quietReader, door);
    expect(round.woke).toBe(false);
    expect(door.seen[0]?.nextTurn.map((message) => message.id)).toEqual([id]);
    expect((await recipient(id))?.phases.delivered?.how).toBe("pi");
  });

  it("pi's own shown or waiting mail is planned as done: never handed over twice", async () => {
    const shown = new Set<string>();
    const door = fakeDoor(HOW.pi!, (won) => woke(won));
    door.handed = (id) => shown.has(id);
    const [a, b] = [await send("a"), await send("b")];
    shown.add(a);
    await wakeRound(roster, reader, door);
    expect(door.seen[0]?.messages.map((message) => message.id)).toEqual([b]);
    expect((await wakeRound(roster, reader, door)).steps).toMatchObject([
      { id: a, step: "skip", reason: "done" },
      { id: b, step: "next-turn", reason: "already-woken" },
    ]);
  });

  it("Codex's queue shares the member's slots: a batch takes one, the next is held and its claims given back", async () => {
    const door = fakeDoor({ ...HOW.codex!, policy: policy("shared", false, 1) }, woke);
    const [a, b] = [await send("a"), await send("b")];
    expect((await wakeRound(roster, reader, door)).woke).toBe(true);
    expect(door.seen[0]?.wake.map((message) => message.id)).toEqual([a, b]);
    // Still unread: the claims kept name them, so another process does not wake them again.
    const other = fakeDoor({ ...HOW.codex!, policy: policy("shared", false, 1) }, woke);
    expect((await wakeRound(roster, reader, other)).woke).toBe(false);
    // New mail: the one slot is taken, so it is held till it frees, and marked so once.
    const c = await send("c");
    const held = await wakeRound(roster, reader, door);
    expect(held.woke).toBe(false);
    expect((await recipient(c))?.wakeHeld).toMatchObject({
      how: "codex-queue",
      words: "1 wake in the last minute",
    });
    expect(door.book?.hold?.retryAfter).toBe(held.heldUntil);
    // The hold is known: no slot is asked for, no claim taken, until it ends.
    const again = await wakeRound(roster, reader, door);
    expect(door.seen).toHaveLength(2);
    expect(again.steps.find((step) => step.id === c)).toMatchObject({ step: "hold", mark: false });
    expect(await roster.readClaim("wakes", `r1.${c}`)).toBeUndefined();
  });

  it("Codex: a wake the engine refused gives its claims back and names the failure", async () => {
    const door = fakeDoor(HOW.codex!, () => ({ ok: false, error: "codex queue exited 2" }));
    const id = await send("a");
    expect((await wakeRound(roster, reader, door)).woke).toBe(false);
    expect((await recipient(id))?.wakeFailed).toMatchObject({ how: "codex-queue" });
    expect(await roster.readClaim("wakes", `r1.${id}`)).toBeUndefined();
  });

  it("the nudger takes each message once, even when its nudge did not land", async () => {
    const door = fakeDoor(HOW.nudge!, () => ({ ok: false }));
    const id = await send("a");
    await wakeRound(roster, reader, door);
    const again = await wakeRound(roster, reader, door);
    expect(door.seen).toHaveLength(1);
    expect(again.steps).toMatchObject([{ id, step: "skip", reason: "done" }]);
  });

  it("the nudger leaves quiet mail in the mailbox: it only wakes", async () => {
    const door = fakeDoor(HOW.nudge!, woke);
    await send("quiet");
    expect((await wakeRound(roster, quietReader, door)).steps).toMatchObject([
      { step: "skip", reason: "no-wake" },
    ]);
    expect(door.seen).toHaveLength(0);
  });

  it("a Claude hook counts no rate, reads what it shows and gives its claims back; a rewake is marked as one", async () => {
    const door = fakeDoor(HOW.hook!, (won) => ({
      ok: true,
      delivered: won.map((message) => message.id),
      woke: won.map((message) => message.id),
      ack: won.map((message) => message.id),
    }));
    const ids = [await send("a"), await send("b"), await send("c")];
    expect((await wakeRound(roster, reader, door)).woke).toBe(true);
    expect(door.seen[0]?.wake).toHaveLength(3);
    const receipt = await recipient(ids[2]!);
    expect(receipt?.phases.woke?.how).toBe("claude-rewake");
    expect(receipt?.phases.delivered?.how).toBe("hook");
    expect(await roster.readClaim("wakes", `shown.r1.${ids[0]}`)).toBeUndefined();
    const inbox = await roster.receive("r1");
    expect(inbox.ok && inbox.messages).toEqual([]);
  });

  it("two hooks at once: a message is shown by one of them", async () => {
    const first = fakeDoor(HOW.hook!, () => ({ ok: true, woke: [] }));
    await send("a");
    let inner: Promise<unknown> | undefined;
    const second = fakeDoor(HOW.hook!, () => ({ ok: true, woke: [] }));
    const outer: WakeDoor = {
      ...first,
      async wake(batch) {
        const won = await batch.take();
        inner = wakeRound(roster, reader, second);
        await inner;
        return { ok: true, woke: [], delivered: won.map((message) => message.id) };
      },
    };
    await wakeRound(roster, reader, outer);
    expect(second.seen).toHaveLength(1);
    expect(await second.seen[0]?.take()).toEqual([]);
  });

  it("a door that throws gives its claims back", async () => {
    const door: WakeDoor = {
      how: HOW.codex!,
      book: EMPTY_WAKE_BOOK,
      async wake(batch) {
        await batch.take();
        throw new Error("store gone");
      },
    };
    const id = await send("a");
    await expect(wakeRound(roster, reader, door)).rejects.toThrow("store gone");
    expect(await roster.readClaim("wakes", `r1.${id}`)).toBeUndefined();
  });
});
