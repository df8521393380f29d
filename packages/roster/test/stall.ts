// A process stalled at one point: the first time it reads a file whose path ends in `suffix`, the
// others' steps (`meanwhile`) run before the read returns its now old answer.
import type { RosterFs } from "../src/index.js";

export function stallAfterRead(
  fs: RosterFs,
  suffix: string,
  meanwhile: () => Promise<void>,
): { fs: RosterFs; stalled: () => boolean } {
  let stalled = false;
  return {
    fs: {
      ...fs,
      async readFile(path: string) {
        const text = await fs.readFile(path);
        if (!stalled && path.endsWith(suffix)) {
          stalled = true;
          await meanwhile();
        }
        return text;
      },
    },
    stalled: () => stalled,
  };
}
