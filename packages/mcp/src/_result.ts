// A tool's answer: a short text for the model plus the same facts as structured content, and who
// the caller is on the team (a member, or a guest and why) in both.
import { oneSentence, tookOverLine } from "@muster/core";
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

export function whoLine(standpoint: Standpoint): string {
  if (standpoint.kind === "guest") return `You are not on the team (a guest): ${standpoint.why}.`;
  const joined = standpoint.joined ? "You joined the team as" : "You are";
  if (!standpoint.took) return `${joined} ${standpoint.label}.`;
  return oneSentence([
    `${joined} ${standpoint.label}`,
    tookOverLine(standpoint.label, standpoint.took),
  ]);
}

export const whoFacts = (standpoint: Standpoint) =>
  standpoint.kind === "guest"
    ? { you: null, guest: { reason: standpoint.reason, why: standpoint.why } }
    : {
        you: {
          label: standpoint.label,
          id: standpoint.caller.id,
          pane: standpoint.caller.seat?.pane ?? null,
          wake: standpoint.watching.wake,
          joined: standpoint.joined,
          took: standpoint.took ?? null,
        },
        guest: null,
      };
