// A board client in its own process, for the real-filesystem board tests. Run with Node's type
// stripping against the built package: `node test/board-worker.ts <mode> <team dir> <id>`.
//   hold:  joins as <id>, claims card <arg>, prints "held", then idles until killed.
//   stall: joins as <id>, claims card <arg>, prints "held", then hands it off to the live member
//          named by the next argument and stops for good once it holds that card's claim lock
//          (prints "locked"): a process killed there leaves the lock behind.
//   chaos: joins as <id>, then adds, claims, finishes, drops, hands off and reads at random until
//          killed, printing one JSON line per change written: the card and the version it replaced.
import { nodeFs, processFacts, processStart } from "@muster/node";
import { openRoster } from "../dist/index.js";
import { claim, drop, finish, handoff, newCard, ownerVerdict, release } from "./board-rules.ts";

const [mode, dir, id = `w${process.pid}`, arg, to] = process.argv.slice(2);
// In stall mode, the hand-off's lock on the card's claim is where this process stops.
let stallOn: string | undefined;
const fs: typeof nodeFs = {
  ...nodeFs,
  async link(from, path) {
    await nodeFs.link(from, path);
    if (stallOn !== undefined && path.endsWith(`/locks/cards.${stallOn}.lock`)) {
      console.log("locked");
      // Stopped for good, and alive until killed: a pending promise alone keeps no process up.
      setInterval(() => undefined, 1 << 30);
      await new Promise(() => undefined);
    }
  },
};
const opened = await openRoster({
  dir: dir!,
  fs,
  clock: Date.now,
  processes: processFacts,
});
if (!opened.ok) {
  console.log(JSON.stringify(opened));
  process.exit(1);
}
const roster = opened.roster;
const board = roster.board({ ownerVerdict });
const me = { label: id, id };
const joined = await roster.join({
  id,
  label: id,
  agent: "test",
  pid: process.pid,
  pidStart: processStart(process.pid),
  watching: { armed: false, wake: false },
  liveness: "process",
});
if (!joined.ok) {
  console.log(JSON.stringify(joined));
  process.exit(1);
}

type Decide = Parameters<typeof board.change>[0]["decide"];
const claimCard = (card: string) =>
  board.change({ card, actor: id, decide: (now) => claim(now, card, me), after: "keep" });

if (mode === "hold") {
  const answer = await claimCard(arg!);
  console.log(answer.ok ? "held" : JSON.stringify(answer));
  setInterval(() => undefined, 1 << 30);
} else if (mode === "stall") {
  const answer = await claimCard(arg!);
  console.log(answer.ok ? "held" : JSON.stringify(answer));
  const receiver = { label: to!, id: to! };
  stallOn = arg;
  await board.change({
    card: arg!,
    actor: id,
    decide: (now) => handoff(now, arg!, me, receiver),
    after: { transfer: to! },
  });
  console.log("not stalled");
} else if (mode === "chaos") {
  console.log("ready");
  const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)];
  // The version each written change replaced, so the test can tell two writers of one version.
  const logged =
    (card: string, decide: Decide): Decide =>
    (now) => {
      const before = now.cards.get(card);
      base = before ? `${before.history.length}:${JSON.stringify(before.history.at(-1))}` : "";
      return decide(now);
    };
  let base = "";
  for (;;) {
    const read = await board.read({ reader: id, decide: release });
    if (!read.ok) continue;
    const cards = [...read.board.cards.values()];
    const mine = cards.filter((card) => card.owner?.id === id).map((card) => card.id);
    const open = cards.filter((card) => card.state === "open").map((card) => card.id);
    const step = Math.random();
    let op: string;
    let card: string | undefined;
    let result: { ok: boolean; changed?: boolean } | undefined;
    if (step < 0.15 || cards.length < 4) {
      op = "add";
      const added = await board.add((now, next) => newCard(now, next, me, `from ${id}`));
      card = added.ok ? added.card.id : undefined;
      result = added;
      base = "new";
    } else if (step < 0.55 || mine.length === 0) {
      op = "claim";
      card = pick(open.length > 0 ? open : cards.map((each) => each.id));
      if (!card) continue;
      const target = card;
      result = await board.change({
        card,
        actor: id,
        decide: logged(card, (now) => claim(now, target, me)),
        after: "keep",
      });
    } else {
      card = pick(mine)!;
      const target = card;
      const kind = Math.random();
      const others =
        read.board.members === "unknown"
          ? []
          : read.board.members.members.filter(
              (member) => member.state === "live" && member.id !== id,
            );
      const to = pick(others);
      if (kind < 0.4) {
        op = "done";
        result = await board.change({
          card,
          actor: id,
          decide: logged(card, (now) => finish(now, target, me)),
          after: "release",
        });
      } else if (kind < 0.7 || !to) {
        op = "drop";
        result = await board.change({
          card,
          actor: id,
          decide: logged(card, (now) => drop(now, target, me)),
          after: "release",
        });
      } else {
        op = "handoff";
        const receiver = { label: to.label, id: to.id };
        result = await board.change({
          card,
          actor: id,
          decide: logged(card, (now) => handoff(now, target, me, receiver)),
          after: { transfer: to.id },
        });
      }
    }
    if (result?.ok && result.changed !== false && card)
      console.log(JSON.stringify({ op, card, base, by: id }));
  }
}
