// A tool's answer: a short text for the model plus the same facts as structured content, and who
// the caller is on the team (a member, or a guest and why) in both.
import { oneSentence, printable, tookOverLine } from "@muster/core";
import type { Standpoint } from "./_team.js";

export type Result = {
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
};

export const result = (
  text: string,
  structured: Record<string, unknown>,
  isError = false,
): Result => ({
  content: [{ type: "text", text }],
  structuredContent: structured,
  ...(isError ? { isError: true } : {}),
});

/** A result whose text may quote what another process wrote: shown without its controls. */
export const printableResult = (
  text: string,
  structured: Record<string, unknown>,
  isError = false,
): Result => result(printable(text, { lines: true }), structured, isError);

export function whoLine(standpoint: Standpoint): string {
  if (standpoint.kind === "guest") return `You are not on the team (a guest): ${standpoint.error}.`;
  const joined = standpoint.joined ? "You joined the team as" : "You are";
  if (!standpoint.took) return `${joined} ${standpoint.label}.`;
  return oneSentence([
    `${joined} ${standpoint.label}`,
    tookOverLine(standpoint.label, standpoint.took),
  ]);
}

export const whoFacts = (standpoint: Standpoint) =>
  standpoint.kind === "guest"
    ? { you: null, guest: { reason: standpoint.reason, why: standpoint.error } }
    : {
        you: {
          label: standpoint.label,
          id: standpoint.caller.id,
          pane: standpoint.caller.seat?.pane ?? null,
          wake: standpoint.watching.wake,
          joined: standpoint.joined,
          // The tool result keeps `why` for the takeover's reason.
          took: standpoint.took
            ? {
                from: standpoint.took.from,
                why: standpoint.took.reason,
                forwarded: standpoint.took.forwarded,
              }
            : null,
        },
        guest: null,
      };
