// The folder store's doorbell (`mail/<id>/bell/`): empty files a door arms and each delivery
// removes, for a watcher that reports a removed file at once but an added one only once it has
// been still a while (Claude Code's: 500 ms, and a removal within that wait is not reported at
// all). So two bells are kept armed and a delivery removes the oldest: a ring soon after the
// last one removes a bell armed long enough ago to be seen, not the one just put back.
import {
  checkRealFolder,
  ensureFolders,
  errorCode,
  FILE_MODE,
  listFolder,
  type RosterFs,
} from "./_fs.js";
import type { Layout } from "./_layout.js";
import { uniqueName } from "./_unique.js";

/** How many bells an armed doorbell holds. */
export const BELLS = 2;
const isBell = (name: string) => /^ring-[0-9a-z-]+$/.test(name);

export function folderDoorbell(fs: RosterFs, paths: Layout, clock: () => number) {
  /** The bells in a real folder of this user, oldest first (their names start with the time). */
  const bells = async (member: string) => {
    await checkRealFolder(fs, paths.doorbell(member));
    return (await listFolder(fs, paths.doorbell(member))).filter(isBell).sort();
  };
  return {
    /** Remove the oldest bell; the mail is delivered whatever happens here. */
    async ring(member: string): Promise<void> {
      try {
        for (const name of await bells(member)) {
          try {
            await fs.unlink(`${paths.doorbell(member)}/${name}`);
            return;
          } catch (error) {
            // Another delivery rang this one: ring the next.
            if (errorCode(error) !== "ENOENT") return;
          }
        }
      } catch {
        // No doorbell (the member's door does not use one), or a folder that is not ours.
      }
    },
    doorbell: (member: string) => ({
      folder: paths.doorbell(member),
      async arm() {
        await ensureFolders(fs, [paths.mail, paths.mailbox(member), paths.doorbell(member)]);
        // Empty files created exclusively in place (no temp file beside them, whose removal a
        // watcher would report as a ring): nothing to tear on a crash.
        for (let armed = (await bells(member)).length; armed < BELLS; armed += 1)
          await fs.writeFile(
            `${paths.doorbell(member)}/ring-${uniqueName(clock())}`,
            "",
            FILE_MODE,
          );
      },
    }),
  };
}
