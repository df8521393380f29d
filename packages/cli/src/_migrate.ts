// `muster migrate`: wiring's migrateTeam, shown. A refusal is one line with its fix (and exit 1).
import { printable } from "@muster/core";
import { type Migrated, migrateTeam } from "@muster/wiring";
import { type Context, Refusal } from "./_context.js";

const counted = (moved: Migrated["moved"]) =>
  `${moved.records} records, ${moved.claims} claims, ${moved.board} board entries, ${moved.mailboxes} mailboxes (${moved.unread} unread, ${moved.read} read), ${moved.marks} receipt marks`;

export async function migrateCommand(
  context: Context,
  options: { to: "nats" | "folder"; dryRun: boolean },
) {
  const outcome = await migrateTeam({ ...options, cwd: context.io.cwd, env: context.io.env });
  if (!outcome.ok)
    throw new Refusal(outcome.reason, outcome, {
      ...(outcome.live ? { live: outcome.live } : {}),
    });
  if (context.json) return context.emit(outcome);
  const verb = outcome.dryRun ? "would move" : "moved";
  context.out(
    printable(
      [
        `${verb} ${counted(outcome.moved)}`,
        `  from ${outcome.from}`,
        `  to   ${outcome.to}`,
        ...(outcome.keptAt ? [`  the folder is kept at ${outcome.keptAt}`] : []),
        ...outcome.skipped.map((name) => `  not moved (unreadable): ${name}`),
        ...outcome.sealed.map((name) => `  not moved (sealed to another member's key): ${name}`),
        outcome.next,
      ].join("\n"),
      { lines: true },
    ),
  );
}
