// A send from this pi session (the model's team_send, the user's /team send): joined first by the
// rules (its label is the way back), else sent as a guest saying why; then the wiring's one send,
// all labels or none, as the CLI and MCP send.
import { type Standing, sendLabels } from "@muster/core";
import type { Roster } from "@muster/roster";
import { sendMail } from "@muster/wiring";
import type { Sent } from "./_render.js";

/** The part of the team session a send reads. */
type Sender = {
  roster: Roster | undefined;
  asked: string | undefined;
  readonly options: { id: string };
  ensureJoined(): Promise<Standing | undefined>;
  refusalLine(standing: Standing): string;
};

type Mail = { to: string; body: string; urgent: boolean; replyTo?: string | undefined };

export async function sendAs(session: Sender, mail: Mail): Promise<Sent> {
  const standing = await session.ensureJoined();
  const guest = !standing
    ? "you left the team; /team join [label] to come back"
    : standing.ok
      ? undefined
      : session.refusalLine(standing);
  if (!session.roster) return { receipt: undefined, error: guest };
  const sent = await sendMail(session.roster, {
    labels: sendLabels(mail.to),
    from: session.options.id,
    guest: guest === undefined ? undefined : `${session.asked ?? "pi"} (not on the team)`,
    body: mail.body,
    urgent: mail.urgent,
    replyTo: mail.replyTo,
  });
  if (!sent.ok) return { receipt: sent, guest };
  const delivered = sent.recipients.map(({ id, label, duplicate }) => ({ id, label, duplicate }));
  const receipt = { ok: true as const, id: sent.id, to: delivered, refused: sent.refused };
  // How each recipient will see it and what it is doing now, as the CLI and MCP say it.
  const reach = Object.fromEntries(
    sent.recipients.map((each) => [each.id, each.reach ?? ("not-pushed" as const)]),
  );
  const activity = Object.fromEntries(
    sent.recipients.flatMap((each) => (each.activity ? [[each.id, each.activity]] : [])),
  );
  return { receipt, guest, reach, activity };
}
