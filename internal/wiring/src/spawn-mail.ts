// A spawned member's mail, as every door spawns it: the mail mode its pane is started with (core's
// spawnedMail: it wakes for its mail unless asked to be quiet, else as the spawning shell says),
// and its task mailed from the spawner. A task the engine took as its first prompt is mailed as
// already shown (the roster's `shown`): read at once, its receipt delivered and acknowledged, so it
// is never unread in the member's mailbox and never wakes it to do the same task again.
import { errorLine } from "@muster/core";
import { type MailMode, type SpawnedMail, spawnedMail } from "@muster/core/internal";
import type { Launch } from "@muster/reconciler";
import type { Roster } from "@muster/roster";
import { errorMessage } from "./error-message.ts";
import { SpawnRefusal } from "./spawn-refusal.ts";

/** How the spawned member's mail reaches it, in the spawn's line. */
export const MAIL_WORDS: Readonly<Record<MailMode, string>> = {
  wakes: "woken by its mail",
  quiet: "its mail quiet (never wakes it)",
  off: "its mail off (waits in its inbox)",
};

/** The spawning shell's mail settings, as its pane gets them; refused before anything opens. */
export function paneMail(
  env: NodeJS.ProcessEnv,
  quiet: boolean | undefined,
): SpawnedMail & { ok: true } {
  const mail = spawnedMail(env, { quiet });
  if (!mail.ok) throw new SpawnRefusal(mail.reason, mail.error, mail.fix);
  return mail;
}

/** Mail the task to the new member; a warning line when it could not be. */
export async function mailTask(
  roster: Roster,
  task: { from: string; to: string; body: string; guest: string; launch: Launch },
): Promise<{ mailed: boolean; warning?: string }> {
  const { launch, ...mail } = task;
  const receipt = await roster
    .send({ ...mail, shown: launch.taskOnCommandLine ? "prompt" : undefined })
    .catch((error: unknown) => ({ ok: false as const, error: errorMessage(error) }));
  return receipt.ok
    ? { mailed: true }
    : { mailed: false, warning: `the task was not mailed to ${task.to}: ${errorLine(receipt)}` };
}
