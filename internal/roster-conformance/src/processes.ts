// Real processes on any store: many racing to join one label (one holder every round), racing to
// reclaim a SIGKILLed holder's label (one winner), the SIGKILLed holder's unread mail forwarded,
// activity reported by another process while the member renames itself (never undone), and racing
// to claim one card (one owner). Each racer is its own process (worker.ts). The two storms run
// 4 racers for a round or two in `pnpm test` (every race still contended), 16 for many rounds
// under `pnpm test:long` (MUSTER_LONG_TESTS): more racers only make a rare interleaving likelier.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { DEFAULT_WAKE_POLICY, decideChange, ownerVerdict } from "@muster/core";
import { processFacts, processStart } from "@muster/node";
import { eventually, lineQueue, rounds } from "@muster/test-support";
import { afterEach, describe, expect, it } from "vitest";
import type { ConformanceHarness, ConformanceTeam } from "./harness.ts";
import { kits } from "./kit.ts";

const WORKER = path.join(import.meta.dirname, "worker.ts");

export function processRules(harness: ConformanceHarness) {
  const kit = kits(harness);
  const children = new Set<ChildProcess>();
  afterEach(() => {
    for (const child of children) child.kill("SIGKILL");
    children.clear();
  });
  const worker = (team: ConformanceTeam, mode: string, id: string, label?: string) => {
    const args = [WORKER, team.worker.module, team.worker.config, mode, id];
    const child = spawn(process.execPath, label ? [...args, label] : args, {
      stdio: ["pipe", "pipe", "inherit"],
    });
    children.add(child);
    const queue = lineQueue(child.stdout!);
    let killed = false;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    // A worker that dies on its own (a throw) fails the test at once instead of hanging it.
    const died = exited.then(() => {
      if (!killed) throw new Error(`worker ${id} (${mode}) exited by itself`);
      return "";
    });
    died.catch(() => undefined);
    const next = async () => JSON.parse(await Promise.race([queue.next(), died]));
    const kill = async () => {
      killed = true;
      child.kill("SIGKILL");
      await exited;
    };
    return { child, exited, next, kill };
  };
  /** A roster in this process with real process facts, on the kit's team. */
  const real = async () => {
    const made = await kit();
    const roster = await made.team.open({ clock: Date.now, processes: processFacts });
    return { team: made.team, roster };
  };

  describe(`real processes on the ${harness.name} store`, () => {
    it("8 processes race for one member's wake slots, 3 rounds in one window: the policy's wakes in all, never more", async () => {
      const { team } = await real();
      const racers = Array.from({ length: 8 }, (_, index) => worker(team, "wake", `w${index}`));
      let taken = 0;
      for (let round = 0; round < 3; round += 1) {
        const startAt = Date.now() + 400;
        for (const racer of racers) racer.child.stdin!.write(`codex-m1 ${startAt}\n`);
        const answers = await Promise.all(racers.map((racer) => racer.next()));
        taken += answers.filter((answer) => answer.ok).length;
        for (const held of answers.filter((answer) => !answer.ok))
          expect(held).toMatchObject({ reason: "rate-limited" });
      }
      expect(taken).toBe(DEFAULT_WAKE_POLICY.maxWakes);
    }, 60_000);

    const joinRounds = rounds(2, 30);
    const racing = rounds(4, 16);
    it(`${racing} processes race to join one label, ${joinRounds} rounds: exactly one holder every round`, async () => {
      const { team, roster } = await real();
      const racers = Array.from({ length: racing }, (_, index) =>
        worker(team, "race", `r${index}`),
      );
      for (let round = 0; round < joinRounds; round += 1) {
        const startAt = Date.now() + 400;
        for (const racer of racers) racer.child.stdin!.write(`round${round} ${startAt}\n`);
        const answers = await Promise.all(racers.map((racer) => racer.next()));
        const winners = answers.filter((answer) => answer.ok);
        expect(winners, `round ${round}`).toHaveLength(1);
        const claim = await roster.readClaim("labels", `round${round}`);
        for (const loser of answers.filter((answer) => !answer.ok))
          expect(loser).toMatchObject({
            reason: "label-held",
            holderId: (claim as { holder: string }).holder,
          });
      }
    }, 120_000);

    it("6 processes race to reclaim a SIGKILLed holder's label: one winner, who took it from the dead with its unread mail, the dead holder retired", async () => {
      const { team, roster } = await real();
      const holder = worker(team, "hold", "holder", "lead");
      expect(await holder.next()).toMatchObject({ ok: true });
      const sender = worker(team, "hold", "sender", "alice");
      expect(await sender.next()).toMatchObject({ ok: true });
      expect(await roster.send({ from: "sender", to: "lead", body: "one" })).toMatchObject({
        ok: true,
      });
      await holder.kill();
      const racers = Array.from({ length: 6 }, (_, index) => worker(team, "race", `r${index}`));
      const startAt = Date.now() + 600;
      for (const racer of racers) racer.child.stdin!.write(`lead ${startAt}\n`);
      const answers = await Promise.all(racers.map((racer) => racer.next()));
      const winners = answers.filter((answer) => answer.ok);
      expect(winners).toHaveLength(1);
      // Also where a takeover frees the key for a moment (the folder store) and a racer's fresh
      // create wins it then: that create is told the claim it replaced, and takes it over.
      expect(winners[0]).toMatchObject({ took: { from: "holder", reason: "dead", forwarded: 1 } });
      const winner = `r${answers.indexOf(winners[0])}`;
      expect(await roster.readClaim("labels", "lead")).toMatchObject({ holder: winner });
      const inbox = await roster.receive(winner);
      expect(inbox.ok && inbox.messages.map((each) => each.forwardedFrom?.id)).toEqual(["holder"]);
      const read = await roster.read({ all: true });
      expect(read.ok && read.members.map((each) => each.id)).not.toContain("holder");
    }, 60_000);

    it("a SIGKILLed holder's unread mail goes to whoever takes its label, marked forwarded", async () => {
      const { team, roster } = await real();
      const holder = worker(team, "hold", "holder", "lead");
      expect(await holder.next()).toMatchObject({ ok: true });
      const sender = worker(team, "hold", "sender", "alice");
      expect(await sender.next()).toMatchObject({ ok: true });
      for (const body of ["one", "two"])
        expect(await roster.send({ from: "sender", to: "lead", body })).toMatchObject({ ok: true });
      await holder.kill();
      const taker = worker(team, "race", "taker");
      taker.child.stdin!.write(`lead ${Date.now()}\n`);
      expect(await taker.next()).toMatchObject({ ok: true, took: { forwarded: 2 } });
      const inbox = await roster.receive("taker");
      expect(inbox.ok && inbox.messages.map((each) => [each.body, each.forwardedFrom?.id])).toEqual(
        [
          ["one", "holder"],
          ["two", "holder"],
        ],
      );
    }, 60_000);

    const renames = rounds(60, 600);
    it(`another process reporting activity never undoes a rename, ${renames} renames: record and claim agree`, async () => {
      const { team, roster } = await real();
      const me = {
        id: "busy",
        agent: "claude",
        pid: process.pid,
        pidStart: processStart(process.pid),
        watching: { armed: true, wake: false },
        liveness: "process" as const,
      };
      expect(await roster.join({ ...me, label: "alpha" })).toMatchObject({ ok: true });
      const hooks = worker(team, "activity", "busy");
      expect(await hooks.next()).toBe("reporting");
      for (let round = 0; round < renames; round += 1) {
        const label = round % 2 === 0 ? "beta" : "alpha";
        expect(await roster.join({ ...me, label })).toMatchObject({ ok: true, label });
        const read = await roster.read();
        const seen = read.ok ? read.members.find((each) => each.id === "busy") : undefined;
        expect({ round, label: seen?.label, holds: seen?.holdsLabel }).toEqual({
          round,
          label,
          holds: true,
        });
      }
      // And the hooks were never locked out: their reports land once the renames stop.
      await eventually(
        () => roster.read(),
        (read) => read.ok && read.members.some((each) => each.activity !== undefined),
        "an activity report after the renames",
      );
    }, 120_000);

    const claimRounds = rounds(2, 20);
    it(`${racing} processes race to claim one card, ${claimRounds} rounds: exactly one owner every round`, async () => {
      const { team, roster } = await real();
      const lead = worker(team, "hold", "lead-id", "lead");
      expect(await lead.next()).toMatchObject({ ok: true });
      const board = roster.board({ ownerVerdict });
      const actor = { label: "lead", id: "lead-id" };
      const added = await board.add((snapshot, id) =>
        decideChange(snapshot, actor, { kind: "add", id, title: "contested" }),
      );
      expect(added).toMatchObject({ ok: true, card: { id: "c1" } });
      const racers = Array.from({ length: racing }, (_, index) =>
        worker(team, "claim", `c${index}-id`, `claimer${index}`),
      );
      for (const racer of racers) expect(await racer.next()).toMatchObject({ ok: true });
      for (let round = 0; round < claimRounds; round += 1) {
        const card = `c${round + 1}`;
        if (round > 0)
          await board.add((snapshot, id) =>
            decideChange(snapshot, actor, { kind: "add", id, title: `contested ${round}` }),
          );
        const startAt = Date.now() + 400;
        for (const racer of racers) racer.child.stdin!.write(`${card} ${startAt}\n`);
        const answers = await Promise.all(racers.map((racer) => racer.next()));
        expect(
          answers.filter((answer) => answer.ok),
          `round ${round}`,
        ).toHaveLength(1);
        for (const loser of answers.filter((answer) => !answer.ok))
          expect(loser).toMatchObject({ reason: "card-held" });
      }
    }, 120_000);
  });
}
