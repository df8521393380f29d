// Telling the person, where they already look: a message on each attached tmux client of the
// member's server, the member's window's bell flag (a BEL on its pane's terminal, which tmux
// marks in the window list), a desktop notification where the machine has one, and the
// terminal's own (OSC 9 / 777) when asked for. Never when a client shows the member's pane.
// Which channels: MUSTER_ATTENTION, else tmux's `@muster-attention` option (core's words).
import { spawn } from "node:child_process";
import { closeSync, constants, fstatSync, openSync, writeSync } from "node:fs";
import {
  type AttentionChannel,
  type AttentionKind,
  attentionLine,
  clientsToTell,
  parseChannels,
  printable,
} from "@muster/core";
import { createTmuxRunner } from "@muster/node";
import type { Roster } from "@muster/roster";
import {
  listClientsArgs,
  messageArgs,
  paneTtyArgs,
  parseClients,
  parseTty,
  type TmuxRunner,
} from "@muster/tmux";

export type AlertTarget = {
  /** The one line the person reads: core's `attentionLine`. */
  line: string;
  /** The member's seat: its server's socket and its pane, when it has one. */
  seat?: { server: string; pane: string } | undefined;
};

export type AlertOptions = {
  env: NodeJS.ProcessEnv;
  run?: TmuxRunner | undefined;
  /** Runs a desktop notifier (tests pass their own). */
  notify?: ((program: string, args: string[]) => void) | undefined;
  platform?: NodeJS.Platform | undefined;
};

export type AlertOutcome = {
  /** A client showed the member's pane: nothing was raised. */
  looking: boolean;
  channels: AttentionChannel[];
  /** The clients messaged. */
  told: string[];
  belled: boolean;
  desktop: string | undefined;
};

/** Write a few bytes to a terminal device; false when the path is not one or cannot be written. */
function writeTerminal(tty: string, bytes: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(tty, constants.O_WRONLY | constants.O_NOCTTY | constants.O_NONBLOCK);
    if (!fstatSync(fd).isCharacterDevice()) return false;
    writeSync(fd, bytes);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const startDetached = (program: string, args: string[]) => {
  try {
    const child = spawn(program, args, { detached: true, stdio: "ignore" });
    child.once("error", () => {});
    child.unref();
  } catch {
    // no notifier here
  }
};

/** The desktop notifier of this machine, as a command line, or undefined. */
function desktopCommand(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, line: string) {
  if (platform === "darwin")
    return [
      "osascript",
      ["-e", `display notification ${JSON.stringify(line)} with title "muster"`],
    ] as const;
  if (platform === "linux" && (env.DISPLAY || env.WAYLAND_DISPLAY || env.DBUS_SESSION_BUS_ADDRESS))
    return ["notify-send", ["--app-name=muster", "muster", line]] as const;
  return undefined;
}

/** Raise one alert. Never throws: an alert that cannot be shown is simply not shown. */
export async function raiseAlert(
  target: AlertTarget,
  options: AlertOptions,
): Promise<AlertOutcome> {
  const run = options.run ?? createTmuxRunner({ env: options.env });
  const server = target.seat ? { socket: target.seat.server } : undefined;
  const listed = await run(listClientsArgs(server)).catch(() => undefined);
  const read =
    listed?.status === 0 ? parseClients(listed.stdout) : { clients: [], setting: undefined };
  const { channels } = parseChannels(options.env.MUSTER_ATTENTION ?? read.setting);
  const plan = clientsToTell(read.clients, target.seat?.pane);
  const outcome: AlertOutcome = {
    looking: plan.looking,
    channels,
    told: [],
    belled: false,
    desktop: undefined,
  };
  if (plan.looking || channels.length === 0) return outcome;
  const line = printable(target.line);
  const text = `muster: ${line}`;
  if (channels.includes("message"))
    for (const client of plan.clients) {
      const shown = await run(messageArgs(server, client, text)).catch(() => undefined);
      if (shown?.status === 0) outcome.told.push(client);
    }
  if (channels.includes("bell") && target.seat) {
    const asked = await run(paneTtyArgs(server, target.seat.pane)).catch(() => undefined);
    const tty = asked?.status === 0 ? parseTty(asked.stdout) : undefined;
    outcome.belled = tty !== undefined && writeTerminal(tty, "\u0007");
  }
  if (channels.includes("osc"))
    for (const client of read.clients)
      writeTerminal(client.tty, `\u001b]9;${text}\u0007\u001b]777;notify;muster;${line}\u0007`);
  if (channels.includes("desktop")) {
    const command = desktopCommand(options.platform ?? process.platform, options.env, text);
    if (command) {
      (options.notify ?? startDetached)(command[0], [...command[1]]);
      outcome.desktop = command[0];
    }
  }
  return outcome;
}

/**
 * Raise `kind` about member `id` (its label and seat as the roster holds them now): what a
 * receiver of a signal does when `reportSignal` says the change deserves the person's attention.
 */
export async function alertAbout(
  roster: Roster,
  id: string,
  kind: AttentionKind,
  options: AlertOptions & { detail?: Parameters<typeof attentionLine>[2] },
): Promise<AlertOutcome | undefined> {
  try {
    const read = await roster.read();
    const member = read.ok ? read.members.find((entry) => entry.id === id) : undefined;
    if (!member) return undefined;
    return await raiseAlert(
      { line: attentionLine(kind, member.label, options.detail), seat: member.seat },
      options,
    );
  } catch {
    return undefined;
  }
}
