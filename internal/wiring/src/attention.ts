// Telling the person, where they already look: a message on each attached tmux client of the
// member's server, the member's window's bell flag (a BEL on its pane's terminal, which tmux
// marks in the window list), a desktop notification where the machine has one, and the
// terminal's own (OSC 9 / 777) when asked for. Never when a client shows the member's pane.
// Which channels: MUSTER_ATTENTION, else tmux's `@muster-attention` option (core's words). Every
// alert shown takes one of the team's few slots a minute (core's alertRate, kept in the roster's
// `wakes` space), and many members changed at once are one line (core's burstLine).
import { spawn } from "node:child_process";
import { closeSync, constants, fstatSync, openSync, writeSync } from "node:fs";
import { printable } from "@muster/core";
import {
  type AttentionChannel,
  type AttentionKind,
  alertRate,
  attentionLine,
  burstLine,
  clientsToTell,
  parseChannels,
} from "@muster/core/internal";
import { createTmuxRunner } from "@muster/node";
import type { Member, Roster } from "@muster/roster";
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
  /** The server to tell when no one seat is meant (a burst about many members). */
  server?: string | undefined;
};

export type AlertOptions = {
  env: NodeJS.ProcessEnv;
  run?: TmuxRunner | undefined;
  /** Runs a desktop notifier (tests pass their own). */
  notify?: ((program: string, args: string[]) => void) | undefined;
  platform?: NodeJS.Platform | undefined;
  /** Asked once the alert would be shown: false holds it (the team's rate is spent). */
  allowed?: (() => Promise<boolean>) | undefined;
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
  const socket = target.seat?.server ?? target.server;
  const server = socket ? { socket } : undefined;
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
  if (options.allowed && !(await options.allowed().catch(() => false))) return outcome;
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

/** The roster's id for the team's alert slots (never a member's: join makes none like it). */
const ALERT_SLOTS = "muster_alerts";

/** Take one of the team's alert slots: false when the few a minute are spent. */
export const alertSlot = (roster: Roster) => async () =>
  (await roster.takeWakeSlot(ALERT_SLOTS, `alert-${process.pid}`, alertRate())).ok;

/**
 * Raise `kind` about member `id` (its label and seat as the roster holds them now): what a
 * receiver of a signal does when `reportSignal` says the change deserves the person's attention.
 * Shown only while the team's alert slots last.
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
      { allowed: alertSlot(roster), ...options },
    );
  } catch {
    return undefined;
  }
}

/**
 * Tell the person of members found dead together (`noticeDeaths`' answer): one line per tmux
 * server they sat on (`30 members gone: …`), each taking one of the team's alert slots.
 */
export async function alertDeaths(
  roster: Roster,
  members: readonly Pick<Member, "id" | "label" | "seat">[],
  options: AlertOptions,
): Promise<(AlertOutcome | undefined)[]> {
  if (members.length === 1) return [await alertAbout(roster, members[0]!.id, "gone", options)];
  const byServer = new Map<string | undefined, string[]>();
  for (const member of members) {
    const labels = byServer.get(member.seat?.server) ?? [];
    labels.push(member.label);
    byServer.set(member.seat?.server, labels);
  }
  const outcomes: (AlertOutcome | undefined)[] = [];
  for (const [server, labels] of byServer)
    outcomes.push(
      await raiseAlert(
        { line: burstLine("gone", labels), server },
        { allowed: alertSlot(roster), ...options },
      ).catch(() => undefined),
    );
  return outcomes;
}
