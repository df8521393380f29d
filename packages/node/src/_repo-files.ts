// The files of a repository as a lease taker means them: tracked, and untracked but not ignored,
// relative to the root. Asked once per `muster lease`, to warn of a pattern that covers none.
import { runProgram } from "./_exec.js";

/** The repository's files (git ls-files), or undefined when git cannot say. */
export async function repoFiles(root: string): Promise<string[] | undefined> {
  const listed = await runProgram(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    { cwd: root, timeoutMs: 10_000 },
  );
  if (listed.status !== 0) return undefined;
  return listed.stdout.split("\0").filter((file) => file !== "");
}
