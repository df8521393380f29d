// Roster figures: reading a team of 1,000 records against the bare floor (readdir + read + parse of
// the same files), one join / heartbeat / leave cycle against three bare whole-file writes, and
// 32 processes racing to join one label.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { nodeFs, processFacts as procFacts } from "@muster/node";
import { openRoster } from "@muster/roster";
import { type BenchRow, compare, median } from "../src/bench-kit.ts";

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-bench-roster-"));
  try {
    const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: procFacts });
    if (!opened.ok) throw new Error(opened.error);
    const roster = opened.roster;
    const base = {
      agent: "bench",
      pid: process.pid,
      watching: { armed: true, wake: false },
      liveness: "heartbeat" as const,
    };
    for (let index = 0; index < 1000; index += 1) {
      await roster.join({ ...base, id: `s${index}`, label: `member-${index}` });
    }
    const sessions = path.join(dir, "sessions");
    const read = await compare(
      async () => {
        const team = await roster.read();
        if (!team.ok || team.members.length !== 1000) throw new Error("read lost members");
      },
      () => {
        for (const name of readdirSync(sessions))
          JSON.parse(readFileSync(path.join(sessions, name), "utf8"));
      },
      { runs: 11 },
    );
    // What a read must read at least: each member's record and its label's claim.
    const labels = path.join(dir, "labels");
    const both = await compare(
      () => {
        for (const folder of [sessions, labels])
          for (const name of readdirSync(folder))
            JSON.parse(readFileSync(path.join(folder, name), "utf8"));
      },
      () => undefined,
      { runs: 11 },
    );
    const scratch = path.join(dir, "scratch");
    await nodeFs.mkdir(scratch, 0o700);
    const cycle = await compare(
      async () => {
        const joined = await roster.join({ ...base, id: "cycle", label: "cycler" });
        const beat = await roster.heartbeat("cycle");
        const left = await roster.leave("cycle");
        if (!joined.ok || !beat.ok || !left.ok) throw new Error("cycle failed");
      },
      () => {
        for (const name of ["a", "b", "c"]) {
          writeFileSync(path.join(scratch, `.${name}.tmp`), "{}", { mode: 0o600 });
          renameSync(path.join(scratch, `.${name}.tmp`), path.join(scratch, `${name}.json`));
        }
      },
      { runs: 51 },
    );
    const race = await raceSettles(dir);
    return [
      {
        name: "roster: 32 processes race to join one label, until all answered",
        medianMs: race.medianMs,
        target: {
          text: "< 1 s, one winner",
          met: race.medianMs < 1000 && race.oneWinnerEveryRound,
        },
        note: `${race.rounds} rounds, one winner every round: ${race.oneWinnerEveryRound ? "yes" : "no"}`,
      },
      {
        name: "roster: read 1,000 records",
        medianMs: read.figureMs,
        reference: { name: "readdir + read + parse, bare", medianMs: read.referenceMs },
        target: {
          text: "≤ 2× bare",
          met: read.figureMs <= 2 * read.referenceMs,
          whyMissed: `a read takes each member's record and the claim of its label, twice the files of the bare read: reading and parsing both folders bare takes ${both.figureMs.toFixed(1)} ms in this run, and the other ${(read.figureMs - both.figureMs).toFixed(1)} ms is checking each file as hostile input and judging each holder (its liveness, the label it really holds).`,
        },
      },
      {
        name: "roster: join + heartbeat + leave",
        medianMs: cycle.figureMs,
        reference: { name: "3 bare whole-file writes", medianMs: cycle.referenceMs },
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const RACE_WORKER = path.resolve(
  import.meta.dirname,
  "..",
  "..",
  "packages",
  "roster",
  "test",
  "worker.ts",
);

/** 32 waiting processes are told one label and one moment; the time until the last one answers. */
async function raceSettles(dir: string) {
  const racers = Array.from({ length: 32 }, (_, index) => {
    const child = spawn(process.execPath, [RACE_WORKER, "race", dir, `racer-${index}`], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const answers: ((line: string) => void)[] = [];
    createInterface({ input: child.stdout! }).on("line", (line) => answers.shift()?.(line));
    return { child, answer: () => new Promise<string>((resolve) => answers.push(resolve)) };
  });
  try {
    // Let every racer start and open the roster before the first round.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const times: number[] = [];
    let oneWinnerEveryRound = true;
    for (let round = 0; round < 9; round += 1) {
      const startAt = Date.now() + 50;
      const pending = racers.map((racer) => racer.answer());
      for (const racer of racers) racer.child.stdin!.write(`race-${round} ${startAt}\n`);
      const answers = await Promise.all(pending);
      times.push(Date.now() - startAt);
      const winners = answers
        .map((line) => JSON.parse(line) as { ok: boolean })
        .filter((answer) => answer.ok);
      if (winners.length !== 1) oneWinnerEveryRound = false;
    }
    return { medianMs: median(times.slice(2)), rounds: times.length, oneWinnerEveryRound };
  } finally {
    for (const racer of racers) racer.child.kill("SIGKILL");
  }
}
