// One row of the MCP door's table: a tool's name, title and description for the model, its input
// schema and hints, the capabilities it serves (the architecture's capability table reads them),
// and what runs: the one call into the wiring and the words of its answer. `_tools.ts` is the door,
// a loop over the rows.
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { Serves } from "@muster/core";
import type { Roster, TeamRead } from "@muster/roster";
import type { z } from "zod";
import type { Result } from "./_result.js";
import type { Standpoint, Team } from "./_team.js";

/** The caller of this call, found and joined on asking (see _team.ts), with the roster it read. */
export type Begun = { roster: Roster; read: TeamRead; standpoint: Standpoint };

/** What a row's run is given: this call's caller, found when asked for, and the team. */
export type Call = { begin: () => Promise<Begun>; team: Team };

export type Tool<Shape extends z.ZodRawShape = z.ZodRawShape> = {
  name: string;
  title: string;
  description: string;
  input: Shape;
  annotations: ToolAnnotations;
  serves?: Serves;
  run: (args: z.output<z.ZodObject<Shape>>, call: Call) => Promise<Result>;
};

/** A row with its arguments typed from its own schema, as one of the table's rows. */
export const tool = <Shape extends z.ZodRawShape>(row: Tool<Shape>): Tool => row as unknown as Tool;

/** Hints for a tool that reads and, at most, joins its caller. */
export const READ = { readOnlyHint: false, idempotentHint: true, openWorldHint: false };
/** Hints for a tool that changes the team's state and destroys nothing. */
export const EDIT = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
