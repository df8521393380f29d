// Who one send reaches, decided before anything is written, for every door (the CLI's `send`,
// MCP's and pi's `team_send`): several labels go all or nothing, a label given twice is one
// address, and a label nobody live holds is named with the live label nearest it. The roster
// still checks each write; this is the rule a door asks before the first one.
import { withSuggestion } from "./_suggest.js";

/** As much of a roster member as a send plan reads (a roster member fits). */
export type SendMember = {
  id: string;
  label: string;
  state: string;
  holdsLabel: boolean;
  /** Why a member is not live (the roster's words), named in a refusal. */
  reason?: string | undefined;
};

/** The sender: a member's session id, or (with `guest`) a session sending from outside the team. */
export type SendSender = { id: string; guest?: string | undefined };

export type SendPlanRefusal =
  | "bad-input"
  | "not-member"
  | "no-live-holder"
  | "no-recipients"
  | "to-self";

/** What to do about each refusal, beside the rule that decides it (the roster's own words). */
export const SEND_PLAN_FIXES: Readonly<Record<SendPlanRefusal, string>> = {
  "bad-input": "separate labels with commas: a,b",
  "not-member": "join the team first",
  "no-live-holder": "send to a label a live member holds (the roster lists them)",
  "no-recipients": "send it once a teammate has joined",
  "to-self": "send it to another label, or to all",
};

export type SendPlan =
  | {
      ok: true;
      /** Each address once, as the roster holds it (`all` stays `all`), in the order typed. */
      addresses: string[];
      /** Every member the message reaches, each once. */
      recipients: SendMember[];
      /** The sender as the roster holds it (a guest keeps the id it sends from). */
      sender: { id: string; label: string; guest: boolean };
    }
  | {
      ok: false;
      reason: SendPlanRefusal;
      error: string;
      fix: string;
      /** The label refused, as typed. */
      label?: string;
      /** The live label nearest the refused one, when one is near. */
      suggestion?: string;
    };

const key = (label: string) => label.toLowerCase();

/** `a,b` or a list of labels as labels, trimmed; a list may itself hold `a,b`. */
export function sendLabels(to: string | readonly string[]): string[] {
  return (typeof to === "string" ? [to] : to).flatMap((each) =>
    each.split(",").map((label) => label.trim()),
  );
}

function refuse(reason: SendPlanRefusal, error: string, label?: string): SendPlan {
  return {
    ok: false,
    reason,
    error,
    fix: SEND_PLAN_FIXES[reason],
    ...(label === undefined ? {} : { label }),
  };
}

/**
 * The members one send from `sender` to `labels` reaches, or the first label refused (nothing is
 * then sent). A refusal names the label; one nobody live holds carries core's suggestion. `kept`:
 * the labels kept for declared members that are down, each reached in the mailbox it waits in.
 */
export function planSend(
  labels: readonly string[],
  members: readonly SendMember[],
  sender: SendSender,
  kept: readonly { label: string; id: string }[] = [],
): SendPlan {
  if (labels.length === 0 || labels.some((label) => label === ""))
    return refuse("bad-input", `"${labels.join(",")}" has an empty label; nothing was sent`);
  const live = members.filter((member) => member.state === "live" && member.holdsLabel);
  const self = live.find((member) => member.id === sender.id);
  if (!self && sender.guest === undefined)
    return refuse("not-member", `"${sender.id}" is not a live member of this team`);
  const from = self
    ? { id: self.id, label: self.label, guest: false }
    : { id: sender.id, label: sender.guest ?? sender.id, guest: true };
  const addresses: string[] = [];
  const recipients: SendMember[] = [];
  const reach = (member: SendMember) => {
    if (!recipients.some((earlier) => earlier.id === member.id)) recipients.push(member);
  };
  for (const label of labels) {
    if (addresses.some((earlier) => key(earlier) === key(label))) continue;
    if (key(label) === "all") {
      const everyone = live.filter((member) => member.id !== from.id);
      if (everyone.length === 0)
        return refuse("no-recipients", "no other live member is on the team to receive it", label);
      everyone.forEach(reach);
      addresses.push("all");
      continue;
    }
    const holder = members.find((member) => member.holdsLabel && key(member.label) === key(label));
    // A declared member that is down (core's `downMembers`): its mail waits for its return.
    const down = kept.find((entry) => key(entry.label) === key(label) && entry.id !== from.id);
    if (holder?.state !== "live" && down) {
      if (!addresses.some((earlier) => key(earlier) === key(down.label)))
        addresses.push(down.label);
      reach({ id: down.id, label: down.label, state: "down", holdsLabel: false });
      continue;
    }
    if (holder?.state !== "live") {
      const error = holder
        ? `"${holder.label}" is ${holder.state}${holder.reason ? ` (${holder.reason})` : ""}; nothing was sent`
        : `nobody holds the label "${label}"; nothing was sent`;
      const refused = refuse("no-live-holder", error, label);
      const named = withSuggestion(
        refused as { error: string; fix: string },
        label,
        live.filter((member) => member.id !== from.id).map((member) => member.label),
      );
      return { ...refused, ...named } as SendPlan;
    }
    if (holder.id === from.id)
      return refuse("to-self", `"${holder.label}" is you; nothing was sent`, label);
    if (addresses.some((earlier) => key(earlier) === key(holder.label))) continue;
    addresses.push(holder.label);
    reach(holder);
  }
  return { ok: true, addresses, recipients, sender: from };
}
