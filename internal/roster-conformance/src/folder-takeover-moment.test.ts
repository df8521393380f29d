// Attack, with real processes on a real team folder: the folder store's takeover moves the judged
// claim aside and then creates its own, so the key is free for a moment. A taker is paused in that
// moment (a real child process, stopped right after its rename) while a fresh joiner, another real
// process, takes the label. The winner must be told it took the label over from the dead holder,
// and the dead holder's unread mail must reach it, even when it had no mailbox yet as the taker
// that freed the key finished (the second joiner is paused between its claim and its mailbox).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processFacts } from "@muster/node";
import { eventually, lineQueue } from "@muster/test-support";
import { afterEach, describe, expect, it } from "vitest";
import type { PausePoint } from "./folder-paused.ts";
import { folderHarness } from "./folder-store.ts";
import type { ConformanceTeam } from "./harness.ts";

const WORKER = path.join(import.meta.dirname, "worker.ts");
const PAUSED = path.join(import.meta.dirname, "folder-paused.ts");

const children: ChildProcess[] = [];
const teams: ConformanceTeam[] = [];
const scratches: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await Promise.all(teams.splice(0).map((team) => team.close()));
  for (const scratch of scratches.splice(0)) rmSync(scratch, { recursive: true, force: true });
});

/** A worker (worker.ts) in its own process: through `module` with `config`; its answers, by line. */
function worker(module: string, config: string, mode: string, id: string, label?: string) {
  const args = [WORKER, module, config, mode, id, ...(label ? [label] : [])];
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
  children.push(child);
  const queue = lineQueue(child.stdout!);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    next: async () => JSON.parse(await queue.next()),
    join: (joined: string) => child.stdin!.write(`${joined} ${Date.now()}\n`),
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** A gate for a paused worker: its config, whether it has paused, and letting it go. */
function gate(dir: string, at: PausePoint["at"], suffix: string) {
  const folder = mkdtempSync(path.join(tmpdir(), "muster-gate-"));
  scratches.push(folder);
  const point: PausePoint = { dir, gate: folder, at, suffix };
  return {
    config: JSON.stringify(point),
    paused: () =>
      eventually(
        () => existsSync(path.join(folder, "paused")),
        (paused) => paused,
        `a pause ${at} ${suffix}`,
        { attempts: 400 },
      ),
    go: () => writeFileSync(path.join(folder, "go"), ""),
  };
}

/** A team whose `lead` was held by a process now SIGKILLed, with two unread messages for it. */
async function deadLead() {
  const team = await folderHarness.newTeam();
  teams.push(team);
  const roster = await team.open({ clock: Date.now, processes: processFacts });
  const { module, config: dir } = team.worker;
  const holder = worker(module, dir, "hold", "holder", "lead");
  expect(await holder.next()).toMatchObject({ ok: true });
  const sender = worker(module, dir, "hold", "sender", "alice");
  expect(await sender.next()).toMatchObject({ ok: true });
  const ids: string[] = [];
  for (const body of ["one", "two"]) {
    const sent = await roster.send({ from: "sender", to: "lead", body });
    if (!sent.ok) throw new Error(JSON.stringify(sent));
    ids.push(sent.id);
  }
  await holder.kill();
  return { team, roster, module, dir, ids };
}

describe("attack: a fresh joiner wins the folder store's free moment of a takeover", () => {
  it("the winner is told it took the label from the dead, and gets the dead holder's unread mail", async () => {
    const { roster, module, dir, ids } = await deadLead();
    // The taker stops right after it moved the dead holder's claim away: `lead` is free.
    const taking = gate(dir, "after-rename", "/labels/lead.json");
    const taker = worker(PAUSED, taking.config, "race", "taker");
    taker.join("lead");
    await taking.paused();
    const fresh = worker(module, dir, "race", "fresh");
    fresh.join("lead");
    const won = await fresh.next();
    taking.go();
    const lost = await taker.next();
    expect(lost).toMatchObject({ ok: false, reason: "label-held", holderId: "fresh" });
    expect(won).toMatchObject({
      ok: true,
      label: "lead",
      took: { from: "holder", reason: "dead", forwarded: 2 },
    });
    const inbox = await roster.receive("fresh");
    expect(inbox.ok && inbox.messages.map((each) => [each.body, each.forwardedFrom?.id])).toEqual([
      ["one", "holder"],
      ["two", "holder"],
    ]);
    const receipt = await roster.receipt(ids[0]!);
    expect(receipt.ok && receipt.recipients).toMatchObject([
      { id: "holder", forwardedTo: "fresh" },
      { id: "fresh", forwardedFrom: "holder" },
    ]);
    const read = await roster.read({ all: true });
    expect(read.ok && read.members.map((each) => each.id).sort()).toEqual(["fresh", "sender"]);
  }, 60_000);

  it("the winner had no mailbox yet when the taker gave up: no unread mail of the dead holder expires", async () => {
    const { roster, dir, ids } = await deadLead();
    const taking = gate(dir, "after-rename", "/labels/lead.json");
    const taker = worker(PAUSED, taking.config, "race", "taker");
    taker.join("lead");
    await taking.paused();
    // The fresh joiner creates the claim in the free moment, and stops before making its mailbox.
    const joining = gate(dir, "before-mkdir", "/mail/fresh");
    const fresh = worker(PAUSED, joining.config, "race", "fresh");
    fresh.join("lead");
    await joining.paused();
    taking.go();
    expect(await taker.next()).toMatchObject({ ok: false, holderId: "fresh" });
    joining.go();
    expect(await fresh.next()).toMatchObject({ ok: true, label: "lead" });
    // The dead holder is proven dead: prune forgets whatever is left of it.
    const pruned = await roster.prune();
    expect(pruned.ok && pruned.expiredMail, "unread mail moved to expired/").toEqual([]);
    const inbox = await roster.receive("fresh");
    expect(inbox.ok && inbox.messages.map((each) => each.id).sort()).toEqual([...ids].sort());
    const read = await roster.read({ all: true });
    expect(read.ok && read.members.map((each) => each.id).sort()).toEqual(["fresh", "sender"]);
  }, 60_000);

  it("a prune in the free moment keeps the displaced claim of an old label for the winner", async () => {
    const { team, dir } = await deadLead();
    // The dead holder's claim was written long ago: older than the sweep's grace for leftovers.
    const claim = path.join(dir, "labels", "lead.json");
    const long = new Date(Date.now() - 3_600_000);
    utimesSync(claim, long, long);
    const taking = gate(dir, "after-rename", "/labels/lead.json");
    const taker = worker(PAUSED, taking.config, "race", "taker");
    taker.join("lead");
    await taking.paused();
    const sweep = await team.open({ clock: Date.now, processes: processFacts });
    await sweep.prune();
    expect(existsSync(path.join(dir, "labels", ".lead.json.displaced.tmp"))).toBe(true);
    taking.go();
    expect(await taker.next()).toMatchObject({ ok: true, label: "lead" });
  }, 60_000);
});
