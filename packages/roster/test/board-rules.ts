// Plain board rules for the roster's own tests: just enough of core's to drive the files (claim an
// open card, finish or drop or hand off your own, release a dead owner's). The real rules are core's
// and are table-tested there; these stay dumb on purpose, so a file-level bug cannot hide in them.
import type {
  BoardMembersView,
  BoardSnapshot,
  CardHistoryEntry,
  CardRecord,
  OwnerVerdictRule,
} from "../src/index.js";

export const ownerVerdict: OwnerVerdictRule = (card, members) => {
  if (card.state !== "held" || !card.owner || members === "unknown") return { keep: true };
  const record = members.members.find((member) => member.id === card.owner?.id);
  if (!record)
    return members.unreadable.includes(card.owner.id)
      ? { keep: true }
      : { keep: false, reason: "owner-left" };
  if (record.state === "expired") return { keep: false, reason: "owner-expired" };
  if (record.state === "gone" && record.reason === "process-dead")
    return { keep: false, reason: "owner-dead" };
  return { keep: true };
};

type Actor = { label: string; id: string };
type Refused = { ok: false; reason: string; holder?: string | undefined };
type Decided = { ok: true; card: CardRecord; changed: boolean } | Refused;

const entry = (
  board: BoardSnapshot,
  event: CardHistoryEntry["event"],
  by: string,
  note?: string,
) => ({
  at: board.at,
  event,
  by,
  note,
});
const grow = (card: CardRecord, next: CardHistoryEntry) => [...card.history, next].slice(-150);

export function newCard(board: BoardSnapshot, id: string, by: Actor, title: string): Decided {
  return {
    ok: true,
    changed: true,
    card: {
      id,
      title,
      deps: [],
      createdBy: by.label,
      createdAt: board.at,
      state: "open",
      history: [entry(board, "created", by.label)],
    },
  };
}

export function claim(board: BoardSnapshot, id: string, by: Actor): Decided {
  const card = board.cards.get(id);
  if (!card) return { ok: false, reason: "unknown-card" };
  if (card.state === "held" && card.owner?.id === by.id) return { ok: true, card, changed: false };
  if (card.state === "held") return { ok: false, reason: "card-held", holder: card.owner?.label };
  if (card.state === "done") return { ok: false, reason: "card-done" };
  return {
    ok: true,
    changed: true,
    card: {
      ...card,
      state: "held",
      owner: { label: by.label, id: by.id },
      history: grow(card, entry(board, "claimed", by.label)),
    },
  };
}

function mine(board: BoardSnapshot, id: string, by: Actor): CardRecord | Refused {
  const card = board.cards.get(id);
  if (!card) return { ok: false, reason: "unknown-card" };
  if (card.state !== "held" || card.owner?.id !== by.id)
    return { ok: false, reason: "not-holder", holder: card.owner?.label };
  return card;
}

export function finish(board: BoardSnapshot, id: string, by: Actor): Decided {
  const card = mine(board, id, by);
  if ("ok" in card) return card;
  return {
    ok: true,
    changed: true,
    card: {
      ...card,
      state: "done",
      owner: undefined,
      history: grow(card, entry(board, "finished", by.label)),
    },
  };
}

export function drop(board: BoardSnapshot, id: string, by: Actor): Decided {
  const card = mine(board, id, by);
  if ("ok" in card) return card;
  return {
    ok: true,
    changed: true,
    card: {
      ...card,
      state: "open",
      owner: undefined,
      history: grow(card, entry(board, "dropped", by.label, "test")),
    },
  };
}

export function handoff(board: BoardSnapshot, id: string, by: Actor, to: Actor): Decided {
  const card = mine(board, id, by);
  if ("ok" in card) return card;
  const target = liveMember(board.members, to.id);
  if (!target) return { ok: false, reason: "no-live-holder" };
  return {
    ok: true,
    changed: true,
    card: {
      ...card,
      owner: { label: target.label, id: target.id },
      history: grow(card, { ...entry(board, "handed-off", by.label), to: target.label }),
    },
  };
}

export function release(board: BoardSnapshot, id: string): Decided {
  const card = board.cards.get(id);
  if (!card) return { ok: false, reason: "unknown-card" };
  const verdict = ownerVerdict(card, board.members);
  if (verdict.keep || !card.owner) return { ok: false, reason: "kept" };
  return {
    ok: true,
    changed: true,
    card: {
      ...card,
      state: "open",
      owner: undefined,
      history: grow(card, entry(board, "released", card.owner.label, verdict.reason)),
    },
  };
}

function liveMember(members: BoardMembersView, id: string) {
  return members === "unknown"
    ? undefined
    : members.members.find((member) => member.id === id && member.state === "live");
}
