// The folder store's doorbell on a real filesystem: armed with two bells, a delivery removes the
// oldest (rings) and only that; it is armed again in place, with no temp file beside it (whose
// removal a watcher would report as a ring); a bell folder that is a symlink is never followed.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, nodeSleep, processFacts } from "@muster/node";
import { afterAll, describe, expect, it } from "vitest";
import { openRoster } from "./index.js";

const scratch = mkdtempSync(path.join(tmpdir(), "muster-doorbell-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let teams = 0;

async function team() {
  teams += 1;
  const dir = path.join(scratch, `team-${teams}`);
  const opened = await openRoster({
    dir,
    fs: nodeFs,
    clock: Date.now,
    processes: processFacts,
    sleep: nodeSleep,
  });
  if (!opened.ok) throw new Error(opened.error);
  const { roster } = opened;
  for (const [id, label] of [
    ["s1", "alice"],
    ["s2", "bob"],
  ] as const)
    await roster.join({
      id,
      label,
      agent: "claude",
      pid: process.pid,
      watching: { armed: true, wake: true },
      liveness: "heartbeat",
    });
  return { dir, roster };
}

describe("the doorbell", () => {
  it("is armed in the member's mailbox, and each delivery to the member removes its oldest bell", async () => {
    const { dir, roster } = await team();
    const bell = roster.doorbell("s2")!;
    expect(bell.folder).toBe(path.join(dir, "mail", "s2", "bell"));
    await bell.arm();
    const armed = readdirSync(bell.folder).sort();
    expect(armed).toHaveLength(2);
    expect(armed.every((name) => /^ring-/.test(name))).toBe(true);
    await bell.arm();
    expect(readdirSync(bell.folder).sort()).toEqual(armed);
    expect((await roster.send({ from: "s1", to: "bob", body: "hello" })).ok).toBe(true);
    expect(readdirSync(bell.folder)).toEqual([armed[1]]);
    await bell.arm();
    const again = readdirSync(bell.folder).sort();
    expect(again).toHaveLength(2);
    expect(again[0]).toBe(armed[1]);
    expect((await roster.send({ from: "s1", to: "bob", body: "again" })).ok).toBe(true);
    expect(readdirSync(bell.folder)).toEqual([again[1]]);
    // Another member's bells are not rung by mail to bob.
    const alice = roster.doorbell("s1")!;
    await alice.arm();
    await roster.send({ from: "s1", to: "bob", body: "more" });
    expect(readdirSync(alice.folder)).toHaveLength(2);
  });

  it("is seen by a watcher of its folder as one removal per ring, and no event when arming an armed doorbell", async () => {
    const { roster } = await team();
    const bell = roster.doorbell("s2")!;
    await bell.arm();
    const events: string[] = [];
    const watcher = watch(bell.folder, (event, name) => events.push(`${event} ${name}`));
    try {
      await bell.arm();
      await nodeSleep(100);
      expect(events).toEqual([]);
      const [oldest] = readdirSync(bell.folder).sort();
      await roster.send({ from: "s1", to: "bob", body: "ring" });
      await nodeSleep(100);
      expect(events).toEqual([`rename ${oldest}`]);
      expect(existsSync(path.join(bell.folder, oldest!))).toBe(false);
    } finally {
      watcher.close();
    }
  });

  it("rings nothing when none is armed, and the mail is delivered", async () => {
    const { roster } = await team();
    const sent = await roster.send({ from: "s1", to: "bob", body: "no bell" });
    expect(sent.ok).toBe(true);
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual(["no bell"]);
  });

  it("never follows a bell folder that is a symlink: the file it points at stays, the mail is delivered", async () => {
    const { dir, roster } = await team();
    const outside = path.join(scratch, `outside-${teams}`);
    mkdirSync(outside);
    writeFileSync(path.join(outside, "ring-0"), "not muster's");
    mkdirSync(path.join(dir, "mail", "s2"), { recursive: true });
    rmSync(path.join(dir, "mail", "s2", "bell"), { recursive: true, force: true });
    symlinkSync(outside, path.join(dir, "mail", "s2", "bell"));
    const sent = await roster.send({ from: "s1", to: "bob", body: "planted" });
    expect(sent.ok).toBe(true);
    expect(readdirSync(outside)).toEqual(["ring-0"]);
    await expect(roster.doorbell("s2")!.arm()).rejects.toThrow(/symlink/);
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual(["planted"]);
  });

  it("has no bell for an id that is not one", async () => {
    const { roster } = await team();
    expect(roster.doorbell("../s2")).toBeUndefined();
  });
});
