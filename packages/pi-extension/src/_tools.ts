// pi's tool door: every row (see _tool.ts), in the order pi lists them to the model, registered by
// one loop that makes each answer's text, and each refusal a row throws, safe for pi.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { BOARD_TOOLS } from "./_board-tools.js";
import { safe } from "./_host.js";
import { LAND_TOOLS } from "./_land.js";
import { LEASE_TOOLS } from "./_lease-tools.js";
import { MAIL_TOOLS } from "./_mail-tools.js";
import { SPAWN_TOOLS } from "./_spawn.js";
import type { Tool, ToolContext } from "./_tool.js";

export const TOOLS: readonly Tool[] = [
  ...MAIL_TOOLS,
  ...LEASE_TOOLS,
  ...BOARD_TOOLS,
  ...SPAWN_TOOLS,
  ...LAND_TOOLS,
];

export function registerTools(pi: ExtensionAPI, context: ToolContext) {
  for (const row of TOOLS)
    pi.registerTool({
      name: row.name,
      label: row.label,
      description: row.description,
      parameters: row.parameters,
      async execute(_toolCallId, params) {
        // pi hands a thrown error's message to the model as it is: it may quote what a caller or
        // another process wrote (a label that is none), so it is made safe here too.
        const answer = await row.run(params, context).catch((error: unknown) => {
          throw new Error(safe(error instanceof Error ? error.message : String(error)));
        });
        const text = safe(answer.text);
        return { content: [{ type: "text", text }], details: answer.details ?? {} };
      },
    });
}
