// The roster on a real filesystem with real processes: racing joins, reclaim races and hostile
// folders. Workers run the built package (test/worker.ts); the SIGKILL storm is storm.test.ts.
import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, processStart, processFacts as procFacts } from "@muster/node";
import { lineQueue, rounds } from "@muster/test-support";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openRoster } from "./index.js";

const WORKER = path.join(import.meta.dirname, "..", "test", "worker.ts");
const scratch = mkdtempSync(path.join(tmpdir(), "muster-roster-"));
const children = new Set<ChildProcess>();
let teams = 0;
const newTeam = () => {
  teams += 1;
  return path.join(scratch, `team-${teams}`);
};

afterEach(() => {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A worker process with a queue of its stdout lines. */
function worker(args: string[]) {
  const child = spawn(process.execPath, [WORKER, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  children.add(child);
  const queue = lineQueue(child.stdout!);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, lines: queue.lines, exited, next: queue.next };
}

async function open(dir: string) {
  const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: procFacts });
  if (!opened.ok) throw new Error(opened.error);
  return opened.roster;
}

describe("racing joins", () => {
  const joinRounds = rounds(15, 50);
  it(`16 processes race to join one label, ${joinRounds} rounds: exactly one holder every round`, async () => {
    const dir = newTeam();
    await open(dir);
    const racers = Array.from({ length: 16 }, (_, index) =>
      worker(["race", dir, `racer-${index}`]),
    );
    const roster = await open(dir);
    for (let round = 0; round < joinRounds; round += 1) {
      const label = `Label-${round}`;
      const startAt = Date.now() + 30;
      for (const [index, racer] of racers.entries()) {
        // Mixed case: the claim is case-insensitive.
        racer.child.stdin!.write(
          `${index % 2 ? label.toUpperCase() : label.toLowerCase()} ${startAt}\n`,
        );
      }
      const answers = (await Promise.all(racers.map((racer) => racer.next()))).map((line) =>
        JSON.parse(line),
      );
      const winners = answers.filter((answer) => answer.ok);
      expect(winners).toHaveLength(1);
      for (const loser of answers.filter((answer) => !answer.ok)) {
        expect(loser).toMatchObject({ reason: "label-held", holderLabel: winners[0].label });
      }
      const team = await roster.read();
      const holders = team.ok
        ? team.members.filter(
            (member) => member.holdsLabel && member.label.toLowerCase() === label.toLowerCase(),
          )
        : [];
      expect(holders).toHaveLength(1);
    }
  }, 120_000);

  const reclaimRounds = rounds(4, 10);
  it(`a reclaim race on a dead holder's label: exactly one winner, ${reclaimRounds} rounds`, async () => {
    // The racers start once and race in a new team each round; the dead holder is a real process
    // (a sleep) that joined through the library and was SIGKILLed.
    const racers = Array.from({ length: 8 }, (_, index) =>
      worker(["race", newTeam(), `reclaimer-${index}`]),
    );
    for (let round = 0; round < reclaimRounds; round += 1) {
      const dir = newTeam();
      const roster = await open(dir);
      const holder = spawn("sleep", ["30"], { stdio: "ignore" });
      children.add(holder);
      const start = processStart(holder.pid!);
      expect(
        await roster.join({
          id: "holder",
          label: "lead",
          agent: "test",
          pid: holder.pid!,
          pidStart: start,
          watching: { armed: true, wake: false },
          liveness: "heartbeat",
        }),
      ).toMatchObject({ ok: true });
      holder.kill("SIGKILL");
      await new Promise((resolve) => holder.once("exit", resolve));
      const startAt = Date.now() + 100;
      for (const racer of racers) racer.child.stdin!.write(`lead ${startAt} ${dir}\n`);
      const answers = (await Promise.all(racers.map((racer) => racer.next()))).map((line) =>
        JSON.parse(line),
      );
      const winners = answers.filter((answer) => answer.ok);
      expect(winners).toHaveLength(1);
      // The winner took it over from the dead holder, or created it fresh in the moment another
      // racer had cleared the dead claim (that racer then retired the dead holder to the winner):
      // either way the dead holder is gone from the team.
      if (winners[0].reclaimedFrom !== undefined) expect(winners[0].reclaimedFrom).toBe("holder");
      const team = await roster.read();
      const winner = `reclaimer-${answers.findIndex((answer) => answer.ok)}`;
      expect(team.ok && team.members.map((member) => member.id)).toEqual([winner]);
    }
  }, 120_000);
});

describe("takeover forwards the dead holder's unread mail", () => {
  it("a SIGKILLed holder's unread mail moves to the new holder, marked forwarded, and the join says how many", async () => {
    const dir = newTeam();
    const roster = await open(dir);
    const holder = spawn("sleep", ["30"], { stdio: "ignore" });
    children.add(holder);
    const joined = await roster.join({
      id: "holder",
      label: "lead",
      agent: "test",
      pid: holder.pid!,
      pidStart: processStart(holder.pid!),
      watching: { armed: true, wake: false },
      liveness: "heartbeat",
    });
    expect(joined).toMatchObject({ ok: true });
    const member = { agent: "pi", pid: process.pid, liveness: "heartbeat" as const };
    const watching = { armed: true, wake: false };
    await roster.join({ ...member, id: "s1", label: "alice", watching });
    const ids: string[] = [];
    for (const body of ["first", "second", "read already"]) {
      const receipt = await roster.send({ from: "alice", to: "lead", body });
      if (receipt.ok) ids.push(receipt.id);
    }
    expect(ids).toHaveLength(3);
    // The holder read one before it died: read mail stays its own.
    const read = await roster.ack("holder", [ids[2]!]);
    expect(read).toMatchObject({ acked: [ids[2]] });
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("exit", resolve));
    const took = await roster.join({ ...member, id: "s2", label: "LEAD", watching });
    expect(took).toMatchObject({
      ok: true,
      reclaimedFrom: "holder",
      took: { from: "holder", reason: "dead", forwarded: 2 },
    });
    const inbox = await roster.receive("s2");
    expect(
      inbox.ok && inbox.messages.map((message) => [message.body, message.forwardedFrom]),
    ).toEqual([
      ["first", { id: "holder", label: "lead" }],
      ["second", { id: "holder", label: "lead" }],
    ]);
    expect(readdirSync(path.join(dir, "mail", "holder", "new"))).toEqual([]);
    expect(readdirSync(path.join(dir, "sessions")).sort()).toEqual(["s1.json", "s2.json"]);
  });
});

describe("hostile folders", () => {
  it("a world-writable team folder is refused, and nothing is written in it", async () => {
    const dir = newTeam();
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o777);
    const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: procFacts });
    expect(opened).toMatchObject({ ok: false, reason: "unsafe-folder" });
    expect(readdirSync(dir)).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)(
    "a team folder that is a symlink to another user's folder is refused",
    async () => {
      const other = path.join(scratch, "other-user");
      mkdirSync(other, { mode: 0o700 });
      chownSync(other, 65534, 65534);
      const dir = newTeam();
      symlinkSync(other, dir);
      const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: procFacts });
      expect(opened).toMatchObject({ ok: false, reason: "unsafe-folder" });
      expect(opened.ok === false && opened.error).toContain("belongs to uid 65534");
      expect(readdirSync(other)).toEqual([]);
    },
  );

  it("a record truncated in the middle is a named warning; the rest of the team reads", async () => {
    const dir = newTeam();
    const roster = await open(dir);
    await roster.join({
      id: "s1",
      label: "alice",
      agent: "pi",
      pid: process.pid,
      watching: { armed: true, wake: false },
      liveness: "heartbeat",
    });
    await roster.join({
      id: "s2",
      label: "bob",
      agent: "pi",
      pid: process.pid,
      watching: { armed: true, wake: false },
      liveness: "heartbeat",
    });
    const file = path.join(dir, "sessions", "s2.json");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.slice(0, Math.floor(text.length / 2)), { mode: 0o600 });
    const team = await roster.read();
    expect(team.ok && team.members.map((member) => member.label)).toEqual(["alice"]);
    expect(team.ok && team.warnings[0]).toMatch(/^sessions\/s2\.json does not parse/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
