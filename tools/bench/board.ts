// Board figures: reading a board of 1,000 cards (with core's "never held by the dead" judged over
// each held card) against the bare floor (readdir + read + parse of the same files), and 32
// processes racing to claim one card through core's rules, until every one has its answer.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { decideChange, ownerVerdict, releaseCard } from "@muster/core";
import { nodeFs, processFacts } from "@muster/node";
import { type Board, type BoardSnapshot, openRoster } from "@muster/roster";
import { type BenchRow, compare, median } from "../src/bench-kit.ts";

/** Core's release, as every composer wires it (see @muster/wiring's readBoard). */
function release(board: BoardSnapshot, id: string) {
  const card = board.cards.get(id);
  const verdict = card ? ownerVerdict(card, board.members) : undefined;
  if (!card || !verdict || verdict.keep) return { ok: false as const };
  return {
    ok: true as const,
    changed: true,
    card: releaseCard(card, verdict, board.lead, board.at).card,
  };
}

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-bench-board-"));
  try {
    const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: processFacts });
    if (!opened.ok) throw new Error(opened.error);
    const roster = opened.roster;
    const board = roster.board({ ownerVerdict });
    const members = Array.from({ length: 10 }, (_, index) => ({
      label: `m${index}`,
      id: `m${index}`,
    }));
    for (const member of members) {
      await roster.join({
        ...member,
        agent: "bench",
        pid: process.pid,
        watching: { armed: false, wake: false },
        liveness: "process",
      });
    }
    // 1,000 cards: a third held by live members, some waiting on others.
    for (let index = 0; index < 1000; index += 1) {
      const actor = members[index % members.length]!;
      const added = await board.add((now, id) =>
        decideChange(now, actor, {
          kind: "add",
          id,
          title: `card ${index}`,
          deps: index > 10 && index % 7 === 0 ? [`c${index - 5}`] : [],
        }),
      );
      if (!added.ok) throw new Error(JSON.stringify(added));
      if (index % 3 === 0) {
        const id = added.card.id;
        await board.change({
          card: id,
          actor: actor.id,
          decide: (now) => decideChange(now, actor, { kind: "claim", card: id }),
          after: "keep",
        });
      }
    }
    const folder = path.join(dir, "board");
    const read = await compare(
      async () => {
        const answer = await board.read({ reader: "bench-reader", decide: release });
        if (!answer.ok || answer.board.cards.size !== 1000) throw new Error("read lost cards");
      },
      () => {
        for (const name of readdirSync(folder))
          JSON.parse(readFileSync(path.join(folder, name), "utf8"));
      },
      { runs: 11 },
    );
    const race = await raceSettles(dir, board);
    return [
      {
        name: "board: read 1,000 cards (owners judged, 10 members)",
        medianMs: read.figureMs,
        reference: { name: "readdir + read + parse, bare", medianMs: read.referenceMs },
        target: { text: "< 50 ms", met: read.figureMs < 50 },
      },
      {
        name: "board: 32 processes race to claim one card, until all answered",
        medianMs: race.medianMs,
        target: { text: "< 1 s, one owner", met: race.medianMs < 1000 && race.oneOwnerEveryRound },
        note: `${race.rounds} rounds, one owner every round: ${race.oneOwnerEveryRound ? "yes" : "no"}`,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const RACER = path.resolve(import.meta.dirname, "workers", "board-racer.ts");

/** 32 waiting members are told one card and one moment; the time until the last one answers. */
async function raceSettles(dir: string, board: Board) {
  const racers = Array.from({ length: 32 }, (_, index) => {
    const child = spawn(process.execPath, [RACER, dir, `racer-${index}`], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const answers: ((line: string) => void)[] = [];
    createInterface({ input: child.stdout! }).on("line", (line) => answers.shift()?.(line));
    return { child, answer: () => new Promise<string>((resolve) => answers.push(resolve)) };
  });
  try {
    await Promise.all(racers.map((racer) => racer.answer())); // "ready"
    const times: number[] = [];
    let oneOwnerEveryRound = true;
    for (let round = 0; round < 9; round += 1) {
      const actor = { label: "m0", id: "m0" };
      const added = await board.add((now, id) =>
        decideChange(now, actor, { kind: "add", id, title: `race ${round}` }),
      );
      if (!added.ok) throw new Error(JSON.stringify(added));
      const startAt = Date.now() + 50;
      const pending = racers.map((racer) => racer.answer());
      for (const racer of racers) racer.child.stdin!.write(`${added.card.id} ${startAt}\n`);
      const answers = await Promise.all(pending);
      times.push(Date.now() - startAt);
      if (answers.filter((line) => (JSON.parse(line) as { ok: boolean }).ok).length !== 1)
        oneOwnerEveryRound = false;
    }
    return { medianMs: median(times.slice(2)), rounds: times.length, oneOwnerEveryRound };
  } finally {
    for (const racer of racers) racer.child.kill("SIGKILL");
  }
}
