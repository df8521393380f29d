// The MCP door: the team's tools as one table of rows (see _tool.ts), registered by one loop. Each
// call names its caller (see _identity.ts) only when its row asks, joins it when it is not on the
// team yet (see _team.ts), and answers a short text for the model (every text shown safely, here)
// plus the same facts as structured content.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { printable, printableData, type Serves } from "@muster/core";
import { BOARD_CHANGE_TOOLS } from "./_board-changes.js";
import { BOARD_TOOLS } from "./_board-tools.js";
import { recordToolCall } from "./_codex-status.js";
import type { CallMeta, Identifier } from "./_identity.js";
import { LAND_TOOLS } from "./_land-tools.js";
import { LEASE_TOOLS } from "./_lease-tools.js";
import { MAIL_TOOLS } from "./_mail-tools.js";
import type { Result } from "./_result.js";
import { SPAWN_TOOLS } from "./_spawn-tool.js";
import type { Team } from "./_team.js";
import type { Begun, Tool } from "./_tool.js";

/** Every tool, in the order a client lists them. */
export const TOOLS: readonly Tool[] = [
  ...MAIL_TOOLS,
  ...LEASE_TOOLS,
  ...BOARD_TOOLS,
  ...BOARD_CHANGE_TOOLS,
  ...SPAWN_TOOLS,
  ...LAND_TOOLS,
];

/**
 * A tool as others read it: `muster mcp --help` and the capability table. Written out, not picked
 * from `Tool`: the package's types show no zod or SDK type (both are bundled, see _server-shape.ts).
 */
export type McpToolRow = { name: string; title: string; serves?: Serves };

/** The tools as others read them. */
export const MCP_TOOLS: readonly McpToolRow[] = TOOLS;

/** Register every row: the caller of a call is identified only once its row asks. */
export function registerTools(server: McpServer, identifier: Identifier, team: Team) {
  const begin = async (meta: CallMeta): Promise<Begun> => {
    const caller = await identifier.identify(meta);
    const roster = await team.roster();
    const read = await roster.read();
    const standpoint = await team.standpoint(caller, read);
    await recordToolCall(roster, standpoint, meta);
    return { roster, read, standpoint };
  };
  for (const row of TOOLS)
    server.registerTool(
      row.name,
      {
        title: row.title,
        description: row.description,
        inputSchema: row.input,
        annotations: row.annotations,
      },
      async (args, extra) =>
        shownSafely(
          await row.run(args, { team, begin: () => begin(extra._meta as CallMeta) }).catch(thrown),
        ),
    );
}

/**
 * A row that threw answers as the SDK would (its message, an error), but through the loop: the
 * message may quote what the caller or another process wrote (a label that is none, a file's
 * name), and the SDK would hand it on raw.
 */
const thrown = (error: unknown): Result => ({
  content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }],
  structuredContent: { ok: false },
  isError: true,
});

/**
 * Every text a tool returns, shown safely: whatever another process wrote (a record's seat or
 * folder, a message's sender or reply-to, a card's title) and a row quotes reaches the model and
 * the client's terminal with its controls shown (`\x1b`), never acted on. Here, once, so no row
 * can skip it. The structured content passes the same rule (Codex hands it to its model in place
 * of the text), so no hidden instruction rides along in it either.
 */
const shownSafely = (answer: Result): Result => ({
  ...answer,
  structuredContent: printableData(answer.structuredContent),
  content: answer.content.map((part) => ({ ...part, text: printable(part.text, { lines: true }) })),
});
