// The board's transitions — add, claim, done, drop (hand off and ask are in _board-reach.ts) — and
// who may make each: a pure
// decision over the board as read, answering the card as it should be written and the notices to
// send, or a refusal with its reason and fix. The roster writes; composers send the notices.
import {
  appendHistory,
  type BoardActor,
  type Card,
  checkText,
  checkTitle,
  holds,
  MAX_BODY_LENGTH,
  MAX_NOTE_LENGTH,
  parseCardId,
} from "./_board-card.js";
import {
  type BoardChange,
  type BoardDecision,
  type BoardView,
  doneRefusal,
  notHolder,
  refuse,
} from "./_board-decision.js";
import { blockedRefusal, blockers, checkDependencies } from "./_board-deps.js";
import { liveMember } from "./_board-members.js";
import { leadNotices } from "./_board-notice.js";
import { decideAsk, decideHandoff } from "./_board-reach.js";

/** Decide one change by `actor`. Never throws for anything a caller or a board file can hold. */
export function decideChange(
  view: BoardView,
  actor: BoardActor,
  change: BoardChange,
): BoardDecision {
  if (view.members !== "unknown" && !liveMember(view.members, actor.id)) {
    return refuse(
      "not-member",
      `no live member of the team is called ${actor.label}`,
      "join the team first, then try again",
    );
  }
  if (change.kind === "add") return decideAdd(view, actor, change);
  const parsed = parseCardId(change.card);
  if (!parsed.ok) return refuse(parsed.reason, parsed.error, parsed.fix);
  const card = view.cards.get(parsed.id);
  if (!card)
    return refuse(
      "unknown-card",
      `there is no card ${parsed.id}`,
      "list the cards on the board and pick one that is there",
    );
  switch (change.kind) {
    case "claim":
      return decideClaim(view, actor, card);
    case "done":
      return decideDone(view, actor, card, change.note ?? "");
    case "drop":
      return decideDrop(view, actor, card, change.reason);
    case "handoff":
      return decideHandoff(view, actor, card, change.to, change.message ?? "");
    case "ask":
      return decideAsk(view, actor, card, change.question);
  }
}

function decideAdd(
  view: BoardView,
  actor: BoardActor,
  change: Extract<BoardChange, { kind: "add" }>,
): BoardDecision {
  const title = checkTitle(change.title);
  if (!title.ok) return refuse("bad-text", title.error, title.fix);
  const body = checkText("body", change.body ?? "", MAX_BODY_LENGTH);
  if (!body.ok) return refuse("bad-text", body.error, body.fix);
  const deps = checkDependencies(view.cards, change.id, change.deps ?? []);
  if (!deps.ok) return refuse(deps.reason, deps.error, deps.fix);
  const card: Card = {
    id: change.id,
    title: title.text,
    body: body.text === "" ? undefined : body.text,
    deps: deps.deps,
    createdBy: actor.label,
    createdAt: view.at,
    state: "open",
    history: [{ at: view.at, event: "created", by: actor.label }],
  };
  return { ok: true, card, changed: true, notices: [] };
}

function decideClaim(view: BoardView, actor: BoardActor, card: Card): BoardDecision {
  if (holds(card, actor)) return { ok: true, card, changed: false, notices: [] };
  if (card.state === "done") return doneRefusal(card);
  if (card.state === "held") {
    const holder = card.owner?.label ?? "another session";
    return refuse(
      "card-held",
      `card ${card.id} is held by ${holder}`,
      `ask ${holder} to hand it off, or claim an open card`,
      {
        holder: card.owner?.label,
      },
    );
  }
  const blocking = blockers(card, view.cards);
  if (blocking.length > 0) {
    const refusal = blockedRefusal(card, blocking, view.cards);
    return {
      ...refusal,
      notices: leadNotices(view.lead, actor.label, {
        kind: "blocked",
        card: card.id,
        body: `${actor.label} wanted ${card.id} "${card.title}", but ${refusal.error.replace(`card ${card.id} is `, "it is ")}.`,
      }),
    };
  }
  return {
    ok: true,
    card: {
      ...card,
      state: "held",
      owner: { label: actor.label, id: actor.id },
      history: appendHistory(card.history, { at: view.at, event: "claimed", by: actor.label }),
    },
    changed: true,
    notices: [],
  };
}

function decideDone(view: BoardView, actor: BoardActor, card: Card, text: string): BoardDecision {
  const refusal = notHolder(card, actor, "finish");
  if (refusal) return refusal;
  const note = checkText("note", text, MAX_NOTE_LENGTH);
  if (!note.ok) return refuse("bad-text", note.error, note.fix);
  const kept = note.text === "" ? undefined : note.text;
  return {
    ok: true,
    card: {
      ...card,
      state: "done",
      owner: undefined,
      note: kept,
      history: appendHistory(card.history, {
        at: view.at,
        event: "finished",
        by: actor.label,
        note: kept,
      }),
    },
    changed: true,
    notices: leadNotices(view.lead, actor.label, {
      kind: "finished",
      card: card.id,
      body: `${actor.label} finished ${card.id} "${card.title}"${kept ? `: ${kept}` : "."}`,
    }),
  };
}

function decideDrop(view: BoardView, actor: BoardActor, card: Card, text: string): BoardDecision {
  const refusal = notHolder(card, actor, "drop");
  if (refusal) return refusal;
  const reason = checkText("reason", text, MAX_NOTE_LENGTH);
  if (!reason.ok) return refuse("bad-text", reason.error, reason.fix);
  if (reason.text === "") {
    return refuse(
      "reason-needed",
      `dropping ${card.id} needs a reason`,
      "say why it goes back to open, so the next one to claim it knows",
    );
  }
  return {
    ok: true,
    card: {
      ...card,
      state: "open",
      owner: undefined,
      history: appendHistory(card.history, {
        at: view.at,
        event: "dropped",
        by: actor.label,
        note: reason.text,
      }),
    },
    changed: true,
    notices: leadNotices(view.lead, actor.label, {
      kind: "dropped",
      card: card.id,
      body: `${actor.label} dropped ${card.id} "${card.title}" back to open: ${reason.text}`,
    }),
  };
}
