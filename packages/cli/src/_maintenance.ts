// `muster prune` and `muster doctor`: clear what has expired, and check every part muster relies
// on (tmux, the team folder, the process table, Node, the engines' configs), saying what to fix.
import { accessSync, constants } from "node:fs";
import { mailSetting, printable, wakeRateSetting } from "@muster/core";
import { readProcessTable } from "@muster/node";
import { listPanes, runTmux, serverArgs } from "@muster/tmux";
import { cleanDeadLands, errorMessage } from "@muster/wiring";
import { releaseDeadOwners } from "./_board-team.js";
import { type Context, Refusal } from "./_context.js";
import { engineChecks } from "./_doctor-engines.js";
import { teamNote } from "./_status.js";
import { storeChecks } from "./_store-check.js";

export async function pruneCommand(context: Context) {
  const roster = await context.roster();
  // The cards of owners proven dead first, while their records still say so (the release names
  // the reason, and the lead is told); then prune forgets those members.
  const released = await releaseDeadOwners(context);
  const result = await roster.prune();
  if (!result.ok) throw new Refusal(result.reason, `${result.error}; nothing was removed`);
  // What a land that died left in this repository: its scratch worktree, a half-done fast-forward.
  const lands = await cleanDeadLands(context.io.cwd).catch(() => []);
  if (context.json) return context.emit({ ...result, released, lands });
  for (const warning of result.warnings) context.warn(warning);
  for (const line of lands) context.out(printable(line));
  for (const kept of result.kept)
    context.out(
      printable(
        `Kept ${kept.label}: it stopped answering (${kept.reason}) but is not proven dead; it goes in ${Math.ceil(kept.expiresInMs / 60_000)} min unless it answers.`,
      ),
    );
  context.out(
    `Pruned ${result.removed.length} member(s) expired or proven dead, cleared ${result.cleared.length} leftover(s)` +
      (result.quarantined.length > 0
        ? `, moved ${result.quarantined.length} unreadable file(s) to quarantine/`
        : "") +
      (result.compacted.length > 0
        ? `, folded ${result.compacted.length} read message(s)' receipts into one file each`
        : "") +
      (released.length > 0 ? `, opened ${released.join(", ")} (their holders are gone)` : "") +
      ".",
  );
}

/** One check; `warn` marks a working part worth knowing about (shown `!`, not a failure). */
type Check = {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string | undefined;
  warn?: boolean | undefined;
};

async function tmuxChecks(context: Context): Promise<Check[]> {
  const version = await runTmux(context.run, ["-V"]).catch(() => undefined);
  if (version?.status !== 0) {
    return [
      {
        name: "tmux",
        ok: false,
        detail: "tmux is not installed or does not run",
        fix: "install tmux 3.2 or later (apt-get install tmux)",
      },
    ];
  }
  const checks: Check[] = [{ name: "tmux", ok: true, detail: version.stdout.trim() }];
  const listed = await listPanes(context.run, context.target);
  checks.push(
    listed.ok
      ? {
          name: "tmux server",
          ok: true,
          detail: `${listed.inventory.server.socket} (pid ${listed.inventory.server.pid}), ${listed.inventory.panes.length} pane(s)${listed.inventory.warnings?.length ? `, ${listed.inventory.warnings.length} unreadable and skipped` : ""}`,
        }
      : { name: "tmux server", ok: false, detail: listed.error, fix: listed.fix },
  );
  if (listed.ok) {
    const option = await runTmux(context.run, [
      ...serverArgs(context.target),
      "show-options",
      "-gqv",
      "allow-set-title",
    ]);
    const value = option.stdout.trim();
    checks.push(
      value === "off"
        ? {
            name: "allow-set-title",
            ok: false,
            detail: "off: Codex cannot show its thread id in the pane title",
            fix: "tmux set -g allow-set-title on",
          }
        : {
            name: "allow-set-title",
            ok: true,
            detail: value === "" ? "not an option of this tmux (titles are always allowed)" : value,
          },
    );
  }
  return checks;
}

async function repositoryCheck(context: Context): Promise<Check> {
  const team = await context.team();
  if (team.overridden)
    return { name: "team", ok: true, detail: `the folder named by --team-dir or MUSTER_TEAM_DIR` };
  const note = teamNote(team);
  return note
    ? { name: "team", ok: true, warn: true, detail: note }
    : {
        name: "team",
        ok: true,
        detail: `the git repository ${team.key} (${team.worktrees.length} worktree(s))`,
      };
}

async function folderCheck(context: Context): Promise<Check> {
  const team = await context.team();
  try {
    await context.roster();
    accessSync(team.dir, constants.W_OK);
    return {
      name: "team folder",
      ok: true,
      detail: `${team.dir} (owned by you, mode 0700, writable)`,
    };
  } catch (error) {
    return {
      name: "team folder",
      ok: false,
      detail: errorMessage(error),
      fix: `fix its owner or mode (chmod 700 ${team.dir}), or set MUSTER_TEAM_DIR`,
    };
  }
}

/** The mail settings every door reads: a value no door knows is named (the doors keep their default). */
function settingsCheck(env: NodeJS.ProcessEnv): Check {
  const mail = mailSetting(env);
  const rate = wakeRateSetting(env);
  const bad = !mail.ok ? mail : !rate.ok ? rate : undefined;
  if (bad) return { name: "mail settings", ok: false, detail: bad.error, fix: bad.fix };
  const mode =
    env.MUSTER_MAIL?.trim() ||
    (env.MUSTER_WAKE?.trim() ? `MUSTER_WAKE=${env.MUSTER_WAKE.trim()}` : "default");
  return {
    name: "mail settings",
    ok: true,
    detail: `mail ${mode}, at most ${rate.policy.maxWakes} wakes a minute per member`,
  };
}

export async function doctorCommand(context: Context) {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const table = await readProcessTable();
  // A team on NATS has no folder on this machine: its store is checked instead.
  const store = await storeChecks(context);
  const checks: Check[] = [
    major > 22 || (major === 22 && minor >= 19)
      ? { name: "node", ok: true, detail: process.version }
      : { name: "node", ok: false, detail: process.version, fix: "use Node 22.19 or later" },
    table.ok
      ? {
          name: "process table",
          ok: true,
          detail: `${table.processes.length} processes via ${table.source === "proc" ? "/proc" : "ps"}`,
        }
      : {
          name: "process table",
          ok: false,
          detail: table.error,
          fix: table.fix,
        },
    ...(await tmuxChecks(context)),
    await repositoryCheck(context),
    ...(store.nats ? [] : [await folderCheck(context)]),
    ...store.checks,
    settingsCheck(context.io.env),
    ...(await engineChecks(context, undefined, { models: true })),
  ];
  const failed = checks.filter((check) => !check.ok);
  const warnings = checks.filter((check) => check.ok && check.warn).length;
  const summary = `doctor: ${checks.length - failed.length - warnings} ok, ${warnings} warning(s), ${failed.length} failed`;
  if (!context.json) {
    for (const check of checks) {
      const mark = !check.ok
        ? context.color.red("✗")
        : check.warn
          ? context.color.yellow("!")
          : context.color.green("✓");
      context.out(
        `${mark} ${check.name}: ${printable(check.detail)}${check.fix ? ` — fix: ${printable(check.fix)}` : ""}`,
      );
    }
    context.out(summary);
  }
  if (failed.length === 0) return context.json ? context.emit({ summary, checks }) : undefined;
  throw new Refusal(
    "doctor",
    {
      error: `${failed.length} check(s) failed: ${failed.map((check) => check.name).join(", ")}`,
      fix: "each names its fix above (muster doctor)",
    },
    { summary, checks },
  );
}
