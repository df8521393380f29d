// Receipts in a hostile team folder, on a real filesystem: a receipt file planted as a symlink or a
// folder, a receipt folder replaced by a symlink out of the team, and ids shaped like paths. Files
// outside are checked byte for byte.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, processFacts, processStart } from "@muster/node";
import { afterAll, describe, expect, it } from "vitest";
import { RECEIPT_KEEP_MS } from "./_receipts.js";
import { openRoster } from "./index.js";

const scratch = mkdtempSync(path.join(tmpdir(), "muster-receipts-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let count = 0;

async function team(clock = Date.now) {
  count += 1;
  const dir = path.join(scratch, `team-${count}`);
  const opened = await openRoster({ dir, fs: nodeFs, clock, processes: processFacts });
  if (!opened.ok) throw new Error(opened.error);
  const roster = opened.roster;
  for (const [id, label] of [
    ["s1", "alice"],
    ["s2", "bob"],
  ]) {
    await roster.join({
      id: id!,
      label: label!,
      agent: "pi",
      pid: process.pid,
      pidStart: processStart(process.pid),
      watching: { armed: true, wake: false },
      liveness: "heartbeat",
    });
  }
  return { dir, roster };
}

/** A folder outside the team with a file named like a receipt mark. */
function outside() {
  count += 1;
  const folder = path.join(scratch, `outside-${count}`);
  mkdirSync(folder);
  writeFileSync(path.join(folder, "s2.delivered.json"), "precious bytes");
  return folder;
}
const snapshot = (folder: string) =>
  Object.fromEntries(
    readdirSync(folder).map((name) => [name, readFileSync(path.join(folder, name), "base64")]),
  );

describe("receipts in a hostile team folder", () => {
  it("a receipt file planted as a symlink out of the team is never written through, and never read as a mark", async () => {
    const { dir, roster } = await team();
    const victim = outside();
    const before = snapshot(victim);
    mkdirSync(path.join(dir, "receipts", "m-1"));
    symlinkSync(
      path.join(victim, "s2.delivered.json"),
      path.join(dir, "receipts", "m-1", "s2.delivered.json"),
    );
    const sent = await roster.send({ from: "alice", to: "bob", body: "hi", id: "m-1" });
    expect(sent.ok).toBe(true);
    expect(await roster.markDelivered("s2", ["m-1"], "inbox")).toEqual({ ok: true, marked: [] });
    const receipt = await roster.receipt("m-1");
    expect(receipt.ok && receipt.recipients).toEqual([
      { id: "s2", phases: { written: { at: expect.any(String) } } },
    ]);
    expect(receipt.ok && receipt.warnings).toEqual([
      "receipts/m-1/s2.delivered.json cannot be read (ELOOP); skipped",
    ]);
    expect(snapshot(victim)).toEqual(before);
  });

  it("a receipt file planted as a folder is a warning, not a mark", async () => {
    const { dir, roster } = await team();
    await roster.send({ from: "alice", to: "bob", body: "hi", id: "m-2" });
    mkdirSync(path.join(dir, "receipts", "m-2", "s2.acknowledged.json"));
    expect(await roster.ack("s2", ["m-2"])).toMatchObject({ ok: true, acked: ["m-2"] });
    const receipt = await roster.receipt("m-2");
    expect(receipt.ok && Object.keys(receipt.recipients[0]?.phases ?? {})).toEqual(["written"]);
    expect(receipt.ok && receipt.warnings).toEqual([
      "receipts/m-2/s2.acknowledged.json cannot be read (EISDIR); skipped",
    ]);
  });

  it("a receipt folder replaced by a symlink: marks, reads and prune follow nothing out", async () => {
    let now = Date.now();
    const { dir, roster } = await team(() => now);
    const victim = outside();
    const before = snapshot(victim);
    symlinkSync(victim, path.join(dir, "receipts", "m-3"));
    const sent = await roster.send({ from: "alice", to: "bob", body: "still sent", id: "m-3" });
    expect(sent.ok).toBe(true);
    expect(await roster.markDelivered("s2", ["m-3"], "inbox")).toMatchObject({
      ok: false,
      reason: "unwritable",
    });
    expect(await roster.receipt("m-3")).toMatchObject({ ok: false, reason: "unreadable" });
    now += RECEIPT_KEEP_MS * 3;
    const pruned = await roster.prune();
    expect(pruned.ok && pruned.warnings).toContain("receipts/m-3 is not a folder; skipped");
    expect(snapshot(victim)).toEqual(before);
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual(["still sent"]);
  });

  it("ids shaped like paths name no file anywhere", async () => {
    const { dir, roster } = await team();
    const before = readdirSync(path.join(dir, "receipts"));
    for (const id of ["../sessions/s1", "..", "a/b", ".", "m\u0000x"]) {
      expect(await roster.markDelivered("s2", [id], "inbox")).toEqual({ ok: true, marked: [] });
      expect(await roster.markWoke(id, ["m-4"], "pi")).toMatchObject({ reason: "bad-input" });
      expect(await roster.receipt(id)).toMatchObject({ ok: false, reason: "bad-id" });
      expect(roster.receiptFolder(id)).toBeUndefined();
    }
    expect(readdirSync(path.join(dir, "receipts"))).toEqual(before);
    expect(readdirSync(path.join(dir, "sessions")).sort()).toEqual(["s1.json", "s2.json"]);
  });

  it("prune folds a read message's receipt into one file on disk, removes it once old, and keeps one a planted file sits in", async () => {
    let now = Date.now();
    const { dir, roster } = await team(() => now);
    for (const [id, body] of [
      ["m-5", "a"],
      ["m-6", "b"],
    ])
      await roster.send({ from: "alice", to: "bob", body: body!, id: id! });
    await roster.markDelivered("s2", ["m-5", "m-6"], "inbox");
    await roster.ack("s2", ["m-5", "m-6"]);
    writeFileSync(path.join(dir, "receipts", "m-6", "mine.txt"), "mine");
    const before = await roster.receipt("m-5");
    now += 2 * 60_000;
    expect(await roster.prune()).toMatchObject({ ok: true, compacted: ["m-5"] });
    expect(readdirSync(path.join(dir, "receipts")).sort()).toEqual(["m-5.json", "m-6"]);
    expect(await roster.receipt("m-5")).toEqual(before);
    now += RECEIPT_KEEP_MS;
    const pruned = await roster.prune();
    expect(pruned.ok && pruned.cleared).toContain("receipts/m-5");
    expect(readdirSync(path.join(dir, "receipts"))).toEqual(["m-6"]);
    expect(readdirSync(path.join(dir, "receipts", "m-6"))).toEqual(["mine.txt"]);
  });
});
