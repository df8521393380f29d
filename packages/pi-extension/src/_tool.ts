// One row of pi's tool table: a tool's name, label and description for the model, its parameters,
// the capabilities it serves (the architecture's capability table reads them), and what runs: the
// one call into the session or the wiring and the words of its answer. `index.ts` registers every
// row with one loop, which makes the text safe for pi.
import type { Serves } from "@muster/core";
import type { Static, TSchema } from "typebox";
import type { createBoard } from "./_board.js";
import type { createLeaseGuard } from "./_leases.js";
import type { TeamSession } from "./_team.js";

/** What a row's run is given: the session (once pi started it), the board and the lease guard. */
export type ToolContext = {
  team: () => TeamSession | undefined;
  board: ReturnType<typeof createBoard>;
  leases: ReturnType<typeof createLeaseGuard>;
  /** Show the card (▣) or the leases (✎) this session holds in the footer, after a change. */
  footer: { card(): void; leases(): void };
};

/** A row's answer: the text for the model (made safe by the loop) and the facts beside it. */
export type ToolAnswer = { text: string; details?: Record<string, unknown> };

export type Tool<Parameters extends TSchema = TSchema> = {
  name: string;
  label: string;
  description: string;
  parameters: Parameters;
  serves?: Serves;
  run: (params: Static<Parameters>, context: ToolContext) => Promise<ToolAnswer>;
};

/** A row with its parameters typed from its own schema, as one of the table's rows. */
export const tool = <Parameters extends TSchema>(row: Tool<Parameters>): Tool =>
  row as unknown as Tool;
