export type { Io } from "./_context.js";

import type { Io } from "./_context.js";
import { main as runCommand } from "./_main.js";

/** Run the command line (`argv` without `node` and the script); the answer is the exit status. */
export function main(argv: readonly string[], io: Io, version?: string): Promise<number> {
  return runCommand(argv, io, version);
}
