// `muster hook claude <event>`: Claude Code's hooks as team membership and mail. The member is the
// Claude Code process the hook runs under (its `sh -c` parent's engine ancestor), with the id the
// MCP server and `muster join` give it, so all three agree and `/clear` keeps the member. Every
// decision is core's (join rules, wake policy); a hook never fails the session: trouble is silent.
import {
  type ActivitySignal,
  activityAfter,
  chooseLabel,
  DEFAULT_WAKE_POLICY,
  decideDelivery,
  joinTeam,
  type Watching,
  wakeFromOutside,
} from "@muster/core";
import type { Message, Roster } from "@muster/roster";
import { findMyAgent, findMySeat, openTeam, processRows } from "@muster/wiring";
import { formatMail } from "./_mail-text.js";
import { claudeLeaseDenial } from "./claude-leases.js";

export type HookEvent =
  | "session-start"
  | "user-prompt-submit"
  | "stop"
  | "session-end"
  | "file-changed"
  | "notification"
  | "pre-tool-use";

/** What the hook process answers: its stdout, stderr and exit status. */
export type HookAnswer = { stdout: string; stderr: string; status: number };

export type HookOptions = { env: NodeJS.ProcessEnv; cwd: string; ppid: number };

const quiet: HookAnswer = { stdout: "", stderr: "", status: 0 };
const json = (value: unknown): HookAnswer => ({
  stdout: `${JSON.stringify(value)}\n`,
  stderr: "",
  status: 0,
});

type Me = { roster: Roster; id: string; pid: number; start: string };

async function whoAmI(options: HookOptions): Promise<Me | undefined> {
  const rows = await processRows();
  if (!rows.ok) return undefined;
  const agent = findMyAgent(rows.processes, options.ppid);
  if (!agent.ok || agent.engine !== "claude") return undefined;
  const opened = await openTeam({ cwd: options.cwd, env: options.env });
  if (!opened.ok) return undefined;
  return {
    roster: opened.roster,
    id: `claude-${agent.pid}-${agent.start}`,
    pid: agent.pid,
    start: agent.start,
  };
}

async function join(me: Me, options: HookOptions) {
  const read = await me.roster.read();
  const members = read.ok ? read.members : [];
  const own = members.find((member) => member.id === me.id && member.holdsLabel);
  const taken = members.filter((member) => member.holdsLabel).map((member) => member.label);
  const label =
    own?.label ??
    chooseLabel({ env: options.env.MUSTER_LABEL, taken, random: Math.random, prefix: "claude" })
      .label;
  const seated = await findMySeat({ pid: me.pid, env: options.env });
  // Installing the hooks is the choice to let mail reach this session and wake it; a later
  // choice the roster records (muster join --no-listen) is repeated instead.
  const watching: Watching | undefined = own ? undefined : { armed: true, wake: true };
  const outcome = await joinTeam(
    {
      id: me.id,
      pid: me.pid,
      pidStart: me.start,
      standing: undefined,
      now: Date.now,
      roster: read.ok ? read.members : "unknown",
    },
    { join: (input) => me.roster.join(input) },
    {
      input: {
        agent: "claude",
        pid: me.pid,
        pidStart: me.start,
        cwd: options.cwd,
        seat: seated.ok ? seated.seat : undefined,
        liveness: "process" as const,
      },
      watching,
    },
    label,
  );
  return outcome.standing;
}

/** Record what a hook says of the agent's turn; a member that left records nothing. */
const signal = (me: Me, what: ActivitySignal) => me.roster.activity(me.id, activityAfter(what));

/** May mail wake this member from outside now? Not while its own turn will take it at Stop. */
async function wakeable(me: Me): Promise<boolean> {
  const read = await me.roster.read();
  const activity = read.ok
    ? read.members.find((member) => member.id === me.id)?.activity
    : undefined;
  return wakeFromOutside(
    activity ? { state: activity.state, at: Date.parse(activity.at) } : undefined,
    Date.now(),
  );
}

/** Wake an idle session with its waking mail: exit 2 with the mail on stderr (asyncRewake). */
async function rewake(me: Me): Promise<HookAnswer> {
  const mail = await takeMail(me, true);
  if (mail.length === 0) return quiet;
  await signal(me, "turn-start");
  await markShown(me, mail, true);
  return { stdout: "", stderr: `${formatMail(mail)}\n`, status: 2 };
}

/** Take the mail the policy lets through; a message another hook took first is not shown twice. */
async function takeMail(me: Me, wakingOnly: boolean): Promise<Message[]> {
  const read = await me.roster.read();
  const record = read.ok ? read.members.find((member) => member.id === me.id) : undefined;
  if (record?.state !== "live") return [];
  const inbox = await me.roster.receive(me.id);
  if (!inbox.ok) return [];
  const now = Date.now();
  const chosen = inbox.messages.filter((message) => {
    const delivery = decideDelivery(message, record.watching, [], now, DEFAULT_WAKE_POLICY);
    return delivery.action === "deliver" && (!wakingOnly || delivery.wake);
  });
  if (chosen.length === 0) return [];
  // The rename into cur/ is the claim: only the hook whose rename succeeded shows a message.
  const acked = await me.roster.ack(
    me.id,
    chosen.map((message) => message.id),
  );
  if (!acked.ok) return [];
  const mine = new Set(acked.acked);
  return chosen.filter((message) => mine.has(message.id));
}

/** The receipts of mail a hook hands to Claude: shown (and, for a rewake, a turn started). */
async function markShown(me: Me, mail: readonly Message[], woke: boolean) {
  const ids = mail.map((message) => message.id);
  await me.roster.markDelivered(me.id, ids, "hook");
  if (woke) await me.roster.markWoke(me.id, ids, "claude-rewake");
}

/** Run one hook event with its JSON input; never throws. */
export async function claudeHook(
  event: HookEvent,
  input: unknown,
  options: HookOptions,
): Promise<HookAnswer> {
  try {
    const me = await whoAmI(options);
    if (!me) return quiet;
    const fields = (typeof input === "object" && input !== null ? input : {}) as Record<
      string,
      unknown
    >;
    switch (event) {
      case "session-start": {
        const standing = await join(me, options);
        if (standing.ok) await signal(me, "session-start");
        const folder = me.roster.inboxFolder(me.id);
        const context = standing.ok
          ? `You are on this repository's muster team as ${standing.label}. Team tools: mcp__muster__team_roster (who is on it), mcp__muster__team_send (mail a label, several, or all), mcp__muster__team_inbox (read your mail). Team mail also arrives by itself.`
          : `muster could not put this session on the team: ${standing.error}`;
        return json({
          hookSpecificOutput: {
            hookEventName: "SessionStart",
            additionalContext: context,
            ...(standing.ok && folder ? { watchPaths: [folder] } : {}),
          },
        });
      }
      case "user-prompt-submit": {
        // A prompt, typed or a rewake's, starts a turn: mail that comes now waits for its Stop.
        await signal(me, "turn-start");
        const mail = await takeMail(me, false);
        if (mail.length === 0) return quiet;
        await markShown(me, mail, false);
        return json({
          hookSpecificOutput: {
            hookEventName: "UserPromptSubmit",
            additionalContext: `Team mail:\n\n${formatMail(mail)}`,
          },
        });
      }
      case "stop": {
        // A turn this hook already continued ends here: two agents cannot keep each other going.
        if (fields.stop_hook_active === true) {
          await signal(me, "turn-end");
          return quiet;
        }
        let mail = await takeMail(me, true);
        if (mail.length === 0) {
          // Idle first, then look again: mail that lands after this look finds the session idle
          // and wakes it; mail that landed before it continues this turn.
          await signal(me, "turn-end");
          mail = await takeMail(me, true);
          if (mail.length === 0) return quiet;
          await signal(me, "turn-continued");
        }
        await markShown(me, mail, false);
        return json({
          decision: "block",
          reason: `Team mail arrived while you worked:\n\n${formatMail(mail)}`,
        });
      }
      case "file-changed":
        // A busy session's Stop continues its turn with the mail; only an idle one is woken.
        return (await wakeable(me)) ? rewake(me) : quiet;
      case "notification": {
        // idle_prompt: the session has waited for input a while. Waking mail that a busy mark
        // held back (a turn interrupted with no Stop) wakes it now.
        if (fields.notification_type !== "idle_prompt") return quiet;
        await signal(me, "idle-prompt");
        return rewake(me);
      }
      case "pre-tool-use": {
        // An edit of a path another live member leased exclusively is denied, naming the holder.
        const denial = await claudeLeaseDenial(me.roster, me.id, fields, options.cwd);
        return denial ? json(denial) : quiet;
      }
      case "session-end": {
        // /clear starts a new session in the same process: the member stays.
        if (fields.reason === "clear") return quiet;
        await me.roster.leave(me.id);
        return quiet;
      }
    }
  } catch {
    return quiet;
  }
}
