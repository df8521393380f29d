// `muster up` and `muster down`: the CLI's door to the declared team. Bringing members up and taking
// them down is the shared wiring's (teamUp, teamDown, which the dashboard calls too); this file
// finds the caller for --here, and renders each member's outcome.
import path from "node:path";
import { printable } from "@muster/core";
import { keptLine, type MemberUp, teamDown, teamUp } from "@muster/wiring";
import { type Context, Refusal } from "./_context.js";

export type UpOptions = {
  labels: string[];
  fresh: boolean;
  here: boolean;
  timeoutMs: number;
};

async function effects(context: Context) {
  const [roster, team] = await Promise.all([context.roster(), context.team()]);
  return {
    roster,
    teamDir: team.dir,
    run: context.run,
    target: context.target,
    env: context.io.env,
  };
}

/** One member's outcome in one line. */
function upLine(member: MemberUp): string {
  const where = member.pane ? ` in pane ${member.pane}` : "";
  const words: Record<MemberUp["outcome"], string> = {
    live: "already up, left alone",
    resumed: `resumed in its ${member.engine} session ${member.session}${where}`,
    fresh: `started fresh (${member.engine})${where}`,
    racing: "being started by another muster up or spawn right now",
    failed: `did not come up: ${member.error}`,
  };
  const note = member.note ? `; ${member.note}` : "";
  return `${member.label}: ${words[member.outcome]}${note}`;
}

export async function upCommand(context: Context, options: UpOptions) {
  const { upReady } = await import("./_up-ready.js");
  let here: Awaited<ReturnType<typeof import("./_spawn.js").findCaller>> | undefined;
  if (options.here) {
    const { findCaller } = await import("./_spawn.js");
    here = await findCaller(context, false);
  }
  const answer = await teamUp(
    {
      labels: options.labels.length > 0 ? options.labels : undefined,
      fresh: options.fresh,
      here,
      cwd: path.resolve(context.io.cwd),
      timeoutMs: options.timeoutMs,
    },
    { ...(await effects(context)), ready: (member) => upReady(context, member) },
  );
  if (!answer.ok) throw new Refusal(answer.reason, answer);
  const failed = answer.members.filter((member) => member.outcome === "failed");
  const document = { window: answer.window ?? null, members: answer.members };
  if (failed.length > 0)
    throw new Refusal(
      "not-all-up",
      `${failed.map(upLine).join("; ")}${failed[0]?.fix ? `: ${failed[0].fix}` : ""}`,
      document,
    );
  if (context.json) return context.emit(document);
  if (answer.window)
    context.out(
      printable(
        `team window ${answer.window.name} in session ${answer.window.session}${answer.window.started ? " (tmux started for it)" : ""}`,
      ),
    );
  for (const member of answer.members) context.out(printable(upLine(member)));
}

export async function downCommand(context: Context, labels: string[]) {
  const answer = await teamDown(
    { labels: labels.length > 0 ? labels : undefined, cwd: path.resolve(context.io.cwd) },
    await effects(context),
  );
  if (!answer.ok) throw new Refusal(answer.reason, answer);
  if (context.json) return context.emit({ members: answer.members, daemon: answer.daemon ?? null });
  if (answer.members.length === 0) return context.out("no member to take down");
  for (const member of answer.members) {
    const what =
      member.outcome === "down"
        ? member.quit
          ? "down (it quit)"
          : "down (it did not quit in 5 s; its pane was closed)"
        : member.outcome === "not-ours"
          ? `left alone: ${member.note}`
          : "not running";
    context.out(printable(`${member.label}: ${what}; ${keptLine(member)}`));
  }
  if (answer.daemon) context.out(printable(answer.daemon.note));
}
