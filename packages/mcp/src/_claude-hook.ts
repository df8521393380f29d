// `muster hook claude <event>`: Claude Code's hooks as team membership and mail. The member is the
// Claude Code process the hook runs under (its `sh -c` parent's engine ancestor), with the id the
// MCP server and `muster join` give it, so all three agree and `/clear` keeps the member. Every
// decision is core's (join rules, wake policy); a hook never fails the session: trouble is silent.
import {
  chooseLabel,
  heldLabels,
  joinTeam,
  mailSetting,
  ownHeld,
  printable,
  type Watching,
  wakeFromOutside,
} from "@muster/core";
import { activityFacts, findMySeat, keepBeating } from "@muster/wiring";
import { claudeGuard, type Me, signal, whoAmI } from "./_claude-guard.js";
import { takeMail } from "./_claude-mail.js";
import type { HookAnswer, HookEvent, HookOptions } from "./_hook-answer.js";
import { formatMail } from "./_mail-text.js";

const quiet: HookAnswer = { stdout: "", stderr: "", status: 0 };
const json = (value: unknown): HookAnswer => ({
  stdout: `${JSON.stringify(value)}\n`,
  stderr: "",
  status: 0,
});

async function join(me: Me, options: HookOptions) {
  const read = await me.roster.read();
  const members = read.ok ? read.members : [];
  const own = ownHeld(members, me.id);
  const taken = heldLabels(members);
  const label =
    own?.label ??
    chooseLabel({ env: options.env.MUSTER_LABEL, taken, random: Math.random, prefix: "claude" })
      .label;
  const seated = await findMySeat({ pid: me.pid, env: options.env });
  // Installing the hooks is the choice to let mail reach this session and wake it, unless its
  // environment says otherwise (MUSTER_MAIL, the one setting every door reads: a spawn's --quiet);
  // a later choice the roster records (muster join --no-listen) is repeated instead.
  const setting = mailSetting(options.env);
  const asked = (setting.ok && setting.watching) || { armed: true, wake: true };
  const watching: Watching | undefined = own ? undefined : asked;
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
  // On NATS another host sees this member by its heartbeat only: this host's beater keeps it.
  if (outcome.standing.ok) await keepBeating(me.roster, { cwd: options.cwd, env: options.env });
  return outcome.standing;
}

/** May mail wake this member from outside now? Not while its own turn will take it at Stop. */
async function wakeable(me: Me): Promise<boolean> {
  const read = await me.roster.read();
  const member = read.ok ? read.members.find((entry) => entry.id === me.id) : undefined;
  return member ? wakeFromOutside(activityFacts(member), Date.now()) : true;
}

/**
 * Arm the member's doorbell, where the team's store has one: the folder Claude Code is to watch.
 * A delivery removes a bell, which Claude Code's watcher reports ~100 ms later, where the mail
 * file it adds is reported only after 500 ms of stillness. Undefined: no bell (the mail's folder
 * is still watched).
 */
async function armDoorbell(me: Me): Promise<string | undefined> {
  const bell = me.roster.doorbell(me.id);
  if (!bell) return undefined;
  try {
    await bell.arm();
    return bell.folder;
  } catch {
    return undefined;
  }
}

/** Wake an idle session with its waking mail: exit 2 with the mail on stderr (asyncRewake). */
async function rewake(me: Me): Promise<HookAnswer> {
  const taken = await takeMail(me, true);
  if (taken.mail.length === 0) return quiet;
  await signal(me, "rewake");
  return {
    stdout: "",
    stderr: `${formatMail(taken.mail, taken.members)}\n`,
    status: 2,
    settle: (written) => taken.settle(written, true),
  };
}

/**
 * Run one hook event with its JSON input (undefined: it was not JSON); never throws. Trouble is
 * silent for every event but PreToolUse, the lease guard, which refuses what it cannot decide.
 */
export async function claudeHook(
  event: HookEvent,
  input: unknown,
  options: HookOptions,
): Promise<HookAnswer> {
  if (event === "pre-tool-use") return claudeGuard(input, options);
  try {
    const me = await whoAmI(options);
    if (!me) return quiet;
    const fields = (typeof input === "object" && input !== null ? input : {}) as Record<
      string,
      unknown
    >;
    switch (event) {
      case "session-start":
        return await sessionStart(me, options);
      case "user-prompt-submit":
        return await promptSubmitted(me);
      case "stop":
        return await stopped(me, fields);
      case "file-changed":
        // The bell rang (or mail was added: Claude Code reports an add only once the file is
        // still for 500 ms). Armed again before the mail is looked at: mail delivered after this
        // look rings it again. A busy session's Stop continues its turn; only an idle one wakes.
        await armDoorbell(me);
        return (await wakeable(me)) ? await rewake(me) : quiet;
      case "notification":
        return await notified(me, fields);
      case "permission-request":
        // The dialog is about to be drawn: the person is needed now. The answer stays Claude
        // Code's and the person's: this hook says nothing back.
        await signal(me, "permission-request");
        return quiet;
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

/** SessionStart: join, and tell Claude Code the team's tools and the folders to watch. */
async function sessionStart(me: Me, options: HookOptions): Promise<HookAnswer> {
  const standing = await join(me, options);
  if (standing.ok) await signal(me, "session-start");
  const folder = me.roster.inboxFolder(me.id);
  const bell = standing.ok ? await armDoorbell(me) : undefined;
  const context = standing.ok
    ? `You are on this repository's muster team as ${standing.label}. Team tools: mcp__muster__team_roster (who is on it), mcp__muster__team_send (mail a label, several, or all), mcp__muster__team_inbox (read your mail). Team mail also arrives by itself.`
    : // The refusal may quote a holder's record (its agent), which another process wrote.
      `muster could not put this session on the team: ${printable(standing.error)}`;
  return json({
    hookSpecificOutput: {
      hookEventName: "SessionStart",
      additionalContext: context,
      ...(standing.ok && folder ? { watchPaths: bell ? [folder, bell] : [folder] } : {}),
    },
  });
}

/** UserPromptSubmit: a prompt, typed or a rewake's, starts a turn; mail now waits for its Stop. */
async function promptSubmitted(me: Me): Promise<HookAnswer> {
  await signal(me, "user-prompt-submit");
  const taken = await takeMail(me, false);
  if (taken.mail.length === 0) return quiet;
  return {
    ...json({
      hookSpecificOutput: {
        hookEventName: "UserPromptSubmit",
        additionalContext: `Team mail:\n\n${formatMail(taken.mail, taken.members)}`,
      },
    }),
    settle: (written) => taken.settle(written, false),
  };
}

/** Stop: mail that came during the turn continues it; else the session is idle. */
async function stopped(me: Me, fields: Record<string, unknown>): Promise<HookAnswer> {
  // A turn this hook already continued ends here: two agents cannot keep each other going.
  if (fields.stop_hook_active === true) {
    await signal(me, "stop");
    return quiet;
  }
  let taken = await takeMail(me, true);
  if (taken.mail.length === 0) {
    // Idle first, then look again: mail that lands after this look finds the session idle
    // and wakes it; mail that landed before it continues this turn.
    await signal(me, "stop");
    taken = await takeMail(me, true);
    if (taken.mail.length === 0) return quiet;
    await signal(me, "turn-continued");
  }
  const continued = taken;
  return {
    ...json({
      decision: "block",
      reason: `Team mail arrived while you worked:\n\n${formatMail(continued.mail, continued.members)}`,
    }),
    settle: (written) => continued.settle(written, false),
  };
}

/** Notification: a permission dialog waits for the person, or the session waited idle a while. */
async function notified(me: Me, fields: Record<string, unknown>): Promise<HookAnswer> {
  // A dialog waits for the person (later than PermissionRequest, and only if unanswered).
  if (fields.notification_type === "permission_prompt") {
    await signal(me, "permission-prompt");
    return quiet;
  }
  // idle_prompt: the session has waited for input a while. Waking mail that a busy mark
  // held back (a turn interrupted with no Stop) wakes it now.
  if (fields.notification_type !== "idle_prompt") return quiet;
  await signal(me, "idle-prompt");
  return rewake(me);
}
