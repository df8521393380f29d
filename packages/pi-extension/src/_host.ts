// The session pi starts, wired to pi: its mail delivered as pi's custom messages (woken or for the
// next turn), its footer and notices shown through pi's UI. Text another process wrote is shown
// safely, never passed.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { mailForAgent, printable } from "@muster/core";
import { TeamSession } from "./_team.js";

export const MAIL = "muster-mail";

/** Text for pi (its context and its UI): controls another process wrote are shown, never passed. */
export const safe = (text: string) => printable(text, { lines: true });

/** Mail this session already shows (it may have restarted), and the labels it was addressed by. */
function shownMail(ctx: ExtensionContext) {
  const delivered = new Set<string>();
  const addressed: string[] = [];
  for (const entry of ctx.sessionManager.getEntries() as {
    type: string;
    customType?: string;
    details?: { id?: unknown; to?: unknown };
  }[]) {
    if (entry.type !== "custom_message" || entry.customType !== MAIL) continue;
    if (typeof entry.details?.id === "string") delivered.add(entry.details.id);
    if (typeof entry.details?.to === "string" && entry.details.to.toLowerCase() !== "all")
      addressed.push(entry.details.to);
  }
  return { delivered, addressed };
}

/** The team session of the pi session that just started, not yet started itself. */
export function hostedSession(pi: ExtensionAPI, ctx: ExtensionContext): TeamSession {
  const ui = ctx.ui;
  const { delivered, addressed } = shownMail(ctx);
  const flag = pi.getFlag("muster-label");
  return new TeamSession(
    {
      id: ctx.sessionManager.getSessionId(),
      cwd: ctx.cwd,
      flagLabel: typeof flag === "string" ? flag : undefined,
      sessionName: pi.getSessionName(),
      addressed,
    },
    {
      delivered,
      deliver(message, { wake, mode, standing }) {
        pi.sendMessage(
          {
            customType: MAIL,
            content: mailForAgent(message, standing),
            display: true,
            details: message,
          },
          wake
            ? { triggerTurn: true, deliverAs: mode === "steer" ? "steer" : "followUp" }
            : { deliverAs: "nextTurn" },
        );
      },
      status: (text) => ui.setStatus("muster", text === undefined ? text : printable(text)),
      warn: (line) => ui.notify(safe(line), "warning"),
      note: (line) => ui.notify(safe(line), "info"),
    },
  );
}
