// `muster mcp`: the stdio MCP server. Builds the effects (tmux, the process table, the roster of
// this repository's team) and hands them to the identifier and the tools.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { errorLine } from "@muster/core";
import { createTmuxRunner, processAlive } from "@muster/node";
import type { Roster } from "@muster/roster";
import { parseTmuxEnv, type ServerTarget } from "@muster/tmux";
import {
  endProcess,
  hostFolder,
  launchLabel,
  openTeam,
  processRows,
  startedLabelOf,
} from "@muster/wiring";
import { startCodexListener } from "./_codex-status.js";
import { codexFor, startCodexWaker } from "./_codex-wake.js";
import { createIdentifier, type IdentityEffects, type Member } from "./_identity.js";
import type { MusterServer } from "./_server-shape.js";
import type { HandedOverTransport } from "./_stdio-handover.js";
import { createTeam } from "./_team.js";
import { registerTools } from "./_tools.js";

export type MusterServerOptions = {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The tmux server the callers' panes are on (default: $TMUX's, else tmux's default). */
  target?: ServerTarget;
  /** This process as identification sees it (default: process.pid and process.ppid). */
  self?: { pid: number; ppid: number };
  version?: string;
};

/** The team's roster, opened on first use (and again after a failure). */
function memoRoster(cwd: string, env: NodeJS.ProcessEnv) {
  let opened: Promise<Roster> | undefined;
  return () => {
    opened ??= openTeam({ cwd, env }).then((result) => {
      if (result.ok) return result.roster;
      opened = undefined;
      throw new Error(errorLine(result));
    });
    return opened;
  };
}

/** The MCP server with the team's tools, not yet connected to a transport. */
export function createMusterServer(options: MusterServerOptions = {}): MusterServer {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const here = parseTmuxEnv(env);
  const effects: IdentityEffects = {
    run: createTmuxRunner({ env }),
    target: options.target ?? (here ? { socket: here.server.socket } : undefined),
    async processes() {
      const rows = await processRows();
      if (!rows.ok) throw new Error(rows.error);
      return rows.processes;
    },
    alive: processAlive,
    self: options.self ?? { pid: process.pid, ppid: process.ppid },
  };
  const roster = memoRoster(cwd, env);
  const server = new McpServer(
    { name: "muster", title: "muster team", version: options.version ?? "0.1.0" },
    {
      instructions:
        "muster puts the coding agents working on this repository on one team: see who is on it with team_roster, send mail with team_send, read yours with team_inbox.",
    },
  );
  // The label each caller's own launch was spawned with, from this host's spawn records.
  const launched = async (caller: Member) =>
    launchLabel(caller, {
      teamDir: await hostFolder(await roster(), { cwd, env }),
      run: effects.run,
      processes: effects.processes,
    });
  registerTools(
    server,
    createIdentifier(effects),
    createTeam({
      roster,
      env,
      cwd,
      pid: process.pid,
      launchLabel: launched,
      startedLabel: (caller) => startedLabelOf(caller, { processes: effects.processes }),
    }),
  );
  return server;
}

/**
 * Serve on `transport` (stdin/stdout, handed over by the front: see _stdio-run.ts) until the client
 * closes the connection; wake idle Codex members meanwhile, and hear their activity on Codex's
 * control socket (one listener per Codex home and team: see _codex-status.ts). Then the process
 * ends (the wiring's endProcess): the requests still under way are answered first, the loops
 * stopped, the teams closed, within the end's bound.
 */
export async function serveMcp(
  transport: HandedOverTransport,
  options: MusterServerOptions = {},
): Promise<void> {
  const server = createMusterServer(options);
  const env = options.env ?? process.env;
  const roster = memoRoster(options.cwd ?? process.cwd(), env);
  const stopWaker = startCodexWaker({
    roster,
    env,
    codexFor: codexFor(env),
    holder: `mcp-${process.pid}`,
  });
  const stopListener = startCodexListener({ roster, env });
  // The client is gone when stdin ends (or the transport fails): nothing more will be asked.
  const gone = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  await gone;
  await endProcess({
    env,
    before: [() => transport.answered(), () => server.close(), stopWaker, stopListener],
  });
}
