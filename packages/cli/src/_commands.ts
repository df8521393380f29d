// The command table: every row, in the order `muster --help` lists them. Each row is its summary,
// options, help, the capabilities it serves and what runs (see _command.ts); the rows live by
// concern beside what they run. `_main.ts` parses against this table and turns outcomes into exit
// codes. A row imports what it runs only when it runs (`await import` in its `run`): every command
// loads the table and then only its own code, so that no command pays for another's (a hook runs
// before every edit; `muster mcp` must answer Codex within its start-up grace). import-graph.test.ts
// holds each command to it.
import type { Command } from "./_command.js";
import { MAIL_COMMANDS } from "./_commands-mail.js";
import { SETUP_COMMANDS } from "./_commands-setup.js";
import { SPAWN_COMMANDS } from "./_commands-spawn.js";
import { tableCommands } from "./_commands-table.js";
import { SEAT_COMMAND, TEAM_COMMANDS } from "./_commands-team.js";
import { UP_COMMANDS } from "./_commands-up.js";
import { WORK_COMMANDS } from "./_commands-work.js";

export type { Command, Options, Values } from "./_command.js";
export { GLOBAL, GLOBAL_HELP, stringOption } from "./_command.js";

const { board, lease, release, guard, diff, land } = WORK_COMMANDS;
const { spawn, stop } = SPAWN_COMMANDS;

export const COMMANDS: Record<string, Command> = {
  ...TEAM_COMMANDS,
  ...MAIL_COMMANDS,
  seat: SEAT_COMMAND,
  board,
  spawn,
  stop,
  ...UP_COMMANDS,
  lease,
  release,
  guard,
  diff,
  land,
  ...SETUP_COMMANDS,
  ...tableCommands(() => COMMANDS),
};
