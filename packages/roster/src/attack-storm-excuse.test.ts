// Adversarial review (issue #11): the storm's "read then forgotten" excuse, copied verbatim from
// storm.test.ts (the `lost` computation is inline there, so it is reproduced here as a function).
import { expect, it } from "vitest";

function lostPerStorm(history: string[], stored: Set<string>) {
  const sent = history.filter((line) => line.startsWith("sent ")).map((line) => line.split(" "));
  const acked = history.filter((line) => line.startsWith("acked ")).map((line) => line.split(" "));
  const acking = history
    .filter((line) => line.startsWith("acking "))
    .flatMap((line) => {
      const [, reader, ...ids] = line.split(" ");
      return ids.map((id) => ["acking", reader, id]);
    });
  const forgot = new Set(
    history.filter((line) => line.startsWith("forgot ")).map((line) => line.slice(7)),
  );
  const readThenForgotten = new Set(
    [...acked, ...acking].filter(([, reader]) => forgot.has(reader!)).map(([, , id]) => id),
  );
  return sent.filter(([, , id]) => !readThenForgotten.has(id!) && !stored.has(`${id}.json`));
}

it("a message read by a later life of a slot that was forgotten in an earlier life, and then gone, counts as lost", () => {
  // Slot w1 is restarted with the SAME id after every kill (storm.test.ts: `w${slot}`).
  // Life 1 of w1 dies and the pruner forgets it. Life 2 of w1 joins again, lists m9, prints
  // "acking", and is killed before its ack moved anything: m9 is still unread in w1's new/ ...
  // unless something lost it. Here it is gone from every mailbox and from expired/: a real loss.
  const history = [
    // (the history is concatenated per worker at its kill, not in time order)
    "sent w1 m1",
    "acking w1 m1",
    "acked w1 m1",
    "forgot w1", // life 1 forgotten: its read m1 goes with it, as documented
    "joined lead", // life 2 of w1
    "sent w1 m9",
    "acking w1 m9", // life 2 killed here; never forgotten (it is the live slot at the end)
  ];
  const stored = new Set<string>(); // m9 is nowhere
  expect(lostPerStorm(history, stored).map(([, , id]) => id)).toEqual(["m9"]);
});
