// The changes that reach another member: a hand-off (the card moves to a live label, whose holder
// gets mail naming it) and a question (mail to the card's owner, else its creator).
import {
  appendHistory,
  type BoardActor,
  type Card,
  checkText,
  MAX_NOTE_LENGTH,
} from "./_board-card.js";
import {
  type BoardDecision,
  type BoardRefusal,
  type BoardView,
  notHolder,
  refuse,
} from "./_board-decision.js";
import { type BoardMember, liveHolder, liveLabels } from "./_board-members.js";
import { withSuggestion } from "./_suggest.js";

/** The member a hand-off or question goes to: a live holder of the label, or the refusal. */
function reachable(view: BoardView, label: string): BoardMember | BoardRefusal {
  if (view.members === "unknown") {
    return refuse(
      "members-unknown",
      `the roster cannot be read, so whether "${label}" is on the team is not known`,
      "check the team folder, then try again",
    );
  }
  return (
    liveHolder(view.members, label) ??
    withSuggestion(
      refuse(
        "no-live-holder",
        `no live member holds the label "${label}"`,
        "list the team to see who is on it, and name a member that is",
      ),
      label,
      liveLabels(view.members),
    )
  );
}

export function decideHandoff(
  view: BoardView,
  actor: BoardActor,
  card: Card,
  label: string,
  text: string,
): BoardDecision {
  const refusal = notHolder(card, actor, "hand off");
  if (refusal) return refusal;
  const message = checkText("message", text, MAX_NOTE_LENGTH);
  if (!message.ok) return refuse("bad-text", message.error, message.fix);
  const to = reachable(view, label);
  if ("ok" in to) return to;
  if (to.id === actor.id)
    return refuse(
      "handoff-self",
      `card ${card.id} is already held by ${actor.label}`,
      "name another member's label",
    );
  const said = message.text === "" ? undefined : message.text;
  return {
    ok: true,
    card: {
      ...card,
      owner: { label: to.label, id: to.id },
      history: appendHistory(card.history, {
        at: view.at,
        event: "handed-off",
        by: actor.label,
        to: to.label,
        note: said,
      }),
    },
    changed: true,
    to,
    notices: [
      {
        to: to.label,
        kind: "handed-off",
        card: card.id,
        body: `${actor.label} handed ${card.id} "${card.title}" to you${said ? `: ${said}` : "."}`,
      },
    ],
  };
}

export function decideAsk(
  view: BoardView,
  actor: BoardActor,
  card: Card,
  text: string,
): BoardDecision {
  const question = checkText("question", text, MAX_NOTE_LENGTH);
  if (!question.ok) return refuse("bad-text", question.error, question.fix);
  if (question.text === "")
    return refuse(
      "bad-text",
      "the question is empty",
      "write what you want to know about the card",
    );
  const owner =
    card.state === "held" && card.owner?.id !== actor.id ? card.owner?.label : undefined;
  const label =
    owner ??
    (card.createdBy.toLowerCase() !== actor.label.toLowerCase() ? card.createdBy : undefined);
  if (label === undefined) {
    return refuse(
      "nobody-to-ask",
      `card ${card.id} was made and is held by ${actor.label}: nobody else to ask`,
      "ask the lead or the whole team instead",
    );
  }
  const to = reachable(view, label);
  if ("ok" in to) return to;
  return {
    ok: true,
    card,
    changed: false,
    to,
    notices: [
      {
        to: to.label,
        kind: "asked",
        card: card.id,
        body: `${actor.label} asks about ${card.id} "${card.title}": ${question.text}`,
      },
    ],
  };
}
